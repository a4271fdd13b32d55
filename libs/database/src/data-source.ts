import { DataSource, type DataSourceOptions, type MixedList, type EntitySchema } from 'typeorm';
import { OutboxMessageEntity } from './entities/outbox-message.entity.js';
import { ProcessedCommandEntity } from './entities/processed-command.entity.js';

/** The entities every app has in its own schema, besides its domain tables. */
export const MESSAGING_ENTITIES = [ProcessedCommandEntity, OutboxMessageEntity];

export interface AppDataSourceSpec {
  /** Postgres schema the app owns; nobody else writes it. */
  schema: string;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities: MixedList<Function | string | EntitySchema>;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  migrations: MixedList<Function | string>;
}

/** TypeORM options for one app: its schema, its entities, its committed migrations; never `synchronize`. */
export function appDataSourceOptions(
  spec: AppDataSourceSpec,
  url: string,
  poolSize = 10,
  applicationName = spec.schema,
): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    schema: spec.schema,
    entities: spec.entities,
    migrations: spec.migrations,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    migrationsRun: false,
    logging: false,
    applicationName,
    // pipeline: a statement is sent while the ones before it are still being answered, so the writes a command
    // does not wait for share a round trip with what follows them (pipelined-transaction.ts). Statements awaited
    // one by one behave as without it.
    // jit=off: the apps' statements are short reads and writes. JIT compiles whatever the planner *estimates* to
    // cost above jit_above_cost, and a set-returning function's default estimate (1,000 rows a call) put the
    // billing summary over a 100,000-pod account there: 5 s of compiling for a 1 s query (docs/adr/0046).
    extra: {
      max: poolSize,
      connectionTimeoutMillis: 5000,
      statement_timeout: 30000,
      options: '-c jit=off',
      pipeline: true,
    },
  };
}

/** Creates the app's schema if needed and applies its pending migrations. Returns the names applied. */
export async function runAppMigrations(options: DataSourceOptions): Promise<string[]> {
  const dataSource = new DataSource(options);
  await dataSource.initialize();
  try {
    const schema = (options as { schema?: string }).schema;
    if (schema) await dataSource.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((m) => m.name);
  } finally {
    await dataSource.destroy();
  }
}
