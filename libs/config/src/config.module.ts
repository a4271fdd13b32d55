import { type DynamicModule, Global, Module } from '@nestjs/common';
import { BaseConfig } from './base.config.js';

/**
 * Makes the app's validated config injectable both as its own class and as `BaseConfig`, which the shared
 * libraries inject.
 */
@Global()
@Module({})
export class ConfigModule {
  static forRoot<T extends BaseConfig>(configClass: new () => T, config: T): DynamicModule {
    return {
      module: ConfigModule,
      providers: [
        { provide: configClass, useValue: config },
        { provide: BaseConfig, useValue: config },
      ],
      exports: [configClass, BaseConfig],
    };
  }
}
