import { type DynamicModule, Module } from '@nestjs/common';
import { PlatformModule } from '@app/platform';
import { ClusterSchedulerConfig } from './cluster-scheduler.config.js';
import { DATA_SOURCE_SPEC } from './data-source.js';
import { SchedulerModule } from './scheduler.module.js';

@Module({})
export class AppModule {
  static forRoot(config: ClusterSchedulerConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forApp({
          app: 'cluster-scheduler',
          configClass: ClusterSchedulerConfig,
          config,
          database: DATA_SOURCE_SPEC,
        }),
        SchedulerModule,
      ],
    };
  }
}
