import { type DynamicModule, Injectable, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { BaseConfig } from '@app/config';
import { appDataSourceOptions, type AppDataSourceSpec } from './data-source.js';

/** Postgres: the table that TypeORM's migrations table name refers to does not exist. */
const UNDEFINED_TABLE = '42P01';

/** Readiness of the app's database: reachable, and every committed migration applied. */
@Injectable()
export class DatabaseHealth {
  private migrationsApplied = false;

  constructor(private readonly dataSource: DataSource) {}

  /** Returns null when healthy, otherwise why not. */
  async check(): Promise<string | null> {
    try {
      if (this.migrationsApplied) {
        await this.dataSource.query('SELECT 1');
        return null;
      }
      if ((await this.pendingMigrations()).length) {
        return 'postgres reachable but migrations are pending (run npm run migrate)';
      }
      this.migrationsApplied = true;
      return null;
    } catch (error) {
      return `postgres unreachable: ${(error as Error).message}`;
    }
  }

  /**
   * The committed migrations not recorded as applied, named as TypeORM names them. One plain read of the
   * migrations table, not `showMigrations()`, which first looks the table up in the catalog (an introspection
   * query several times slower, on the path of the first /readyz).
   */
  async pendingMigrations(): Promise<string[]> {
    const options = this.dataSource.options as { schema?: string; migrationsTableName?: string };
    const { driver } = this.dataSource;
    const table = [options.schema, options.migrationsTableName ?? 'migrations']
      .filter((part): part is string => !!part)
      .map((part) => driver.escape(part))
      .join('.');
    const committed = this.dataSource.migrations.map((m) => m.name || m.constructor.name);
    let applied: { name: string }[];
    try {
      applied = await this.dataSource.query(`SELECT name FROM ${table}`);
    } catch (error) {
      if ((error as { code?: string }).code === UNDEFINED_TABLE) return committed;
      throw error;
    }
    const names = new Set(applied.map((row) => row.name));
    return committed.filter((name) => !names.has(name));
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
