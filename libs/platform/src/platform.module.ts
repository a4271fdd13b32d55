import { type DynamicModule, Module } from '@nestjs/common';
import type { AppName } from '@app/contracts';
import { BaseConfig, ConfigModule } from '@app/config';
import { DatabaseModule, type AppDataSourceSpec } from '@app/database';
import { MessagingModule } from '@app/messaging';
import { HealthController } from './health.controller.js';

export interface PlatformOptions<C extends BaseConfig> {
  app: AppName;
  configClass: new () => C;
  config: C;
  database: AppDataSourceSpec;
}

/** What every app has: its validated config, its database, the bus, health/readiness/metrics (correlation ids: `correlationHook`, added by bootstrapApp). */
@Module({})
export class PlatformModule {
  static forApp<C extends BaseConfig>(options: PlatformOptions<C>): DynamicModule {
    return {
      module: PlatformModule,
      imports: [
        ConfigModule.forRoot(options.configClass, options.config),
        DatabaseModule.forApp(options.database, options.app),
        MessagingModule.forApp({ app: options.app }),
      ],
      controllers: [HealthController],
    };
  }
}
