import { type DynamicModule, Injectable, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { BaseConfig } from '@app/config';
import { appDataSourceOptions, type AppDataSourceSpec } from './data-source.js';

/** Readiness of the app's database: reachable, and every committed migration applied. */
@Injectable()
export class DatabaseHealth {
  private migrationsApplied = false;

  constructor(private readonly dataSource: DataSource) {}

  /** Returns null when healthy, otherwise why not. */
  async check(): Promise<string | null> {
    try {
      await this.dataSource.query('SELECT 1');
      if (!this.migrationsApplied) {
        const pending = await this.dataSource.showMigrations();
        if (pending) return 'postgres reachable but migrations are pending (run npm run migrate)';
        this.migrationsApplied = true;
      }
      return null;
    } catch (error) {
      return `postgres unreachable: ${(error as Error).message}`;
    }
  }
}

@Module({})
export class DatabaseModule {
  static forApp(spec: AppDataSourceSpec, appName: string): DynamicModule {
    return {
      module: DatabaseModule,
      global: true,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [BaseConfig],
          useFactory: (config: BaseConfig) => ({
            ...appDataSourceOptions(spec, config.DATABASE_URL, config.DATABASE_POOL_SIZE, appName),
            // Boot must not hang on a database that is down: readiness reports it, requests get 503.
            retryAttempts: 0,
            manualInitialization: false,
          }),
        }),
      ],
      providers: [DatabaseHealth],
      exports: [DatabaseHealth],
    };
  }
}
