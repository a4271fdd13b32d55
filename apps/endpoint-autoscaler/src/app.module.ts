import { type DynamicModule, Module } from '@nestjs/common';
import { PlatformModule } from '@app/platform';
import { DATA_SOURCE_SPEC } from './data-source.js';
import { EndpointAutoscalerConfig } from './endpoint-autoscaler.config.js';
import { EndpointsModule } from './endpoints/endpoints.module.js';
import { ScalingModule } from './scaling/scaling.module.js';
import { WorkersModule } from './workers/workers.module.js';

@Module({})
export class AppModule {
  static forRoot(config: EndpointAutoscalerConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forApp({
          app: 'endpoint-autoscaler',
          configClass: EndpointAutoscalerConfig,
          config,
          database: DATA_SOURCE_SPEC,
        }),
        EndpointsModule,
        ScalingModule,
        WorkersModule,
      ],
    };
  }
}
