import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource, type MigrationInterface } from 'typeorm';
import type { AppName } from '@app/contracts';
import { appDataSourceOptions, type AppDataSourceSpec } from '@app/database';
import { createTestDatabase, type TestDatabase } from './test-database.js';

/** An outbox payload with what a conversion could lose: nesting, an empty-looking object, text beyond ASCII. */
export const OUTBOX_PAYLOAD = {
  clusterId: 'c1',
  members: [{ podId: 'p0', rank: 0, env: { RANK: '0' }, portMappings: { '22/tcp': 20000 } }],
  note: 'ünïcode ✓',
};

/** An unrelayed event's payload and the outbox's payload column type, at one point of a migration's down and up. */
export interface OutboxState {
  type: string;
  payload: unknown;
}

/**
 * A database holding one app's committed migrations (built by its dist/apps/<app>/migrate.mjs, as a deployment
 * builds it), opened with the app's entities and no migrations, for the checks of the app's migrations beside them
 * (apps/<app>/src/migrations/migrations.int-spec.ts).
 */
export class MigratedSchema {
  private constructor(
    private readonly database: TestDatabase,
    private readonly dataSource: DataSource,
    private readonly spec: AppDataSourceSpec,
  ) {}

  static async create(app: AppName, spec: AppDataSourceSpec): Promise<MigratedSchema> {
    const database = await createTestDatabase(`${spec.schema}_migrations`, { apps: [app] });
    const dataSource = new DataSource(
      appDataSourceOptions(
        { ...spec, migrations: [] },
        database.url,
        2,
        `${spec.schema}-migrations-int-spec`,
      ),
    );
    try {
      await dataSource.initialize();
    } catch (error) {
      await database.drop();
      throw error;
    }
    return new MigratedSchema(database, dataSource, spec);
  }

  /**
   * What TypeORM would change to make the database match the entities (the diff `scripts/generate-migration.mjs`
   * turns into a migration): [] when the migrations build exactly what the entities describe. Its diff does not
   * compare an index's WHERE clause: a partial index whose condition changes gets a new name (as
   * jobs_endpoint_active_idx did), which it does compare.
   */
  async drift(): Promise<string[]> {
    const sql = await this.dataSource.driver.createSchemaBuilder().log();
    return sql.upQueries.map((query) => query.query);
  }

  /**
   * Writes an unrelayed event with OUTBOX_PAYLOAD, then runs the app's `OutboxJsonPayload` migration down and up
   * again: the state before, after the down and after the up (docs/adr/0013, "Bookkeeping statements").
   */
  async outboxThroughDowngrade(): Promise<OutboxState[]> {
    const migration = (this.spec.migrations as (new () => MigrationInterface)[])
      .map((Migration) => new Migration())
      .find((m) => m.name?.startsWith('OutboxJsonPayload'));
    if (!migration) throw new Error(`${this.spec.schema} has no OutboxJsonPayload migration`);
    const id = `evt-${this.spec.schema}`;
    await this.dataSource.query(
      `INSERT INTO "${this.spec.schema}".outbox (id, subject, payload, correlation_id, occurred_at)
       VALUES ($1, 'cluster.evt.created', $2, 'corr', now())`,
      [id, JSON.stringify(OUTBOX_PAYLOAD)],
    );
    const states = [await this.outboxState(id)];
    const runner = this.dataSource.createQueryRunner();
    try {
      await migration.down(runner);
      states.push(await this.outboxState(id));
      await migration.up(runner);
    } finally {
      await runner.release();
    }
    states.push(await this.outboxState(id));
    return states;
  }

  private async outboxState(id: string): Promise<OutboxState> {
    const [column] = await this.dataSource.query<{ type: string }[]>(
      `SELECT data_type AS type FROM information_schema.columns
        WHERE table_schema = $1 AND table_name = 'outbox' AND column_name = 'payload'`,
      [this.spec.schema],
    );
    const [row] = await this.dataSource.query<{ payload: unknown }[]>(
      `SELECT payload FROM "${this.spec.schema}".outbox WHERE id = $1`,
      [id],
    );
    return { type: column.type, payload: row.payload };
  }

  async drop(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
    await this.database.drop();
  }
}

/**
 * The medium tests of one app's committed migrations (apps/<app>/src/migrations/migrations.int-spec.ts), applied as
 * a deployment applies them: they build exactly the schema its entities describe, and its outbox conversion keeps
 * an unrelayed event through a downgrade and back.
 */
export function describeMigrations(app: AppName, spec: AppDataSourceSpec): void {
  let schema: MigratedSchema;

  beforeAll(async () => {
    schema = await MigratedSchema.create(app, spec);
  });

  afterAll(async () => {
    await schema?.drop();
  });

  describe(`${app} migrations`, () => {
    it('build exactly the schema its entities describe (an entity changed without its migration fails here)', async () => {
      expect(await schema.drift()).toEqual([]);
    });

    it('leave the outbox payload json, and OutboxJsonPayload keeps an unrelayed event through a downgrade and back', async () => {
      expect(await schema.outboxThroughDowngrade()).toEqual([
        { type: 'json', payload: OUTBOX_PAYLOAD },
        { type: 'jsonb', payload: OUTBOX_PAYLOAD },
        { type: 'json', payload: OUTBOX_PAYLOAD },
      ]);
    });
  });
}
