import { type DynamicModule, Module } from '@nestjs/common';
import { PlatformModule } from '@app/platform';
import { EndpointAutoscalerConfig } from './endpoint-autoscaler.config.js';
import { DATA_SOURCE_SPEC } from './data-source.js';

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
      ],
    };
  }
}
