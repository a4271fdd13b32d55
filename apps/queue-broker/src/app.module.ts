import { type DynamicModule, Module } from '@nestjs/common';
import { PlatformModule } from '@app/platform';
import { QueueBrokerConfig } from './queue-broker.config.js';
import { DATA_SOURCE_SPEC } from './data-source.js';
import { QueueModule } from './queue.module.js';

@Module({})
export class AppModule {
  static forRoot(config: QueueBrokerConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forApp({
          app: 'queue-broker',
          configClass: QueueBrokerConfig,
          config,
          database: DATA_SOURCE_SPEC,
        }),
        QueueModule,
      ],
    };
  }
}
