import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource, type MigrationInterface } from 'typeorm';
import { appDataSourceOptions, type AppDataSourceSpec } from '@app/database';
import { DATA_SOURCE_SPEC as SCHEDULER } from '../../apps/cluster-scheduler/src/data-source.js';
import { DATA_SOURCE_SPEC as AUTOSCALER } from '../../apps/endpoint-autoscaler/src/data-source.js';
import { DATA_SOURCE_SPEC as GATEWAY } from '../../apps/gateway/src/data-source.js';
import { DATA_SOURCE_SPEC as PODS } from '../../apps/pod-lifecycle/src/data-source.js';
import { DATA_SOURCE_SPEC as BROKER } from '../../apps/queue-broker/src/data-source.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';

/**
 * Every app's outbox payload column is `json` (the text as written) after its migrations, and the migration that
 * made it so converts in place: an event not yet relayed at the upgrade keeps its payload, both ways (the
 * `OutboxJsonPayload` migrations; docs/adr/0013, "Bookkeeping statements").
 */

const SPECS: AppDataSourceSpec[] = [GATEWAY, BROKER, PODS, SCHEDULER, AUTOSCALER];

const PAYLOAD = {
  clusterId: 'c1',
  members: [{ podId: 'p0', rank: 0, env: { RANK: '0' }, portMappings: { '22/tcp': 20000 } }],
  note: 'ünïcode ✓',
};

let database: TestDatabase | undefined;
let dataSource: DataSource;

beforeAll(async () => {
  database = await createTestDatabase('outbox_json_payload');
  dataSource = new DataSource(
    appDataSourceOptions({ ...GATEWAY, migrations: [] }, database.url, 2, 'outbox-json-payload-int-spec'),
  );
  await dataSource.initialize();
});

afterAll(async () => {
  if (dataSource?.isInitialized) await dataSource.destroy();
  await database?.drop();
});

async function payloadColumn(schema: string): Promise<string> {
  const rows = await dataSource.query<{ type: string }[]>(
    `SELECT data_type AS type FROM information_schema.columns
      WHERE table_schema = $1 AND table_name = 'outbox' AND column_name = 'payload'`,
    [schema],
  );
  return rows[0].type;
}

async function storedPayload(schema: string, id: string): Promise<unknown> {
  const rows = await dataSource.query<{ payload: unknown }[]>(
    `SELECT payload FROM "${schema}".outbox WHERE id = $1`,
    [id],
  );
  return rows[0].payload;
}

describe.each(SPECS.map((spec) => [spec.schema, spec] as const))('%s outbox', (schema, spec) => {
  it('stores the payload as json, and its migration keeps an unrelayed event through a downgrade and back', async () => {
    expect(await payloadColumn(schema)).toBe('json');
    const migration = (spec.migrations as (new () => MigrationInterface)[])
      .map((Migration) => new Migration())
      .find((m) => m.name?.startsWith('OutboxJsonPayload'));
    expect(migration).toBeDefined();
    const id = `evt-${schema}`;
    await dataSource.query(
      `INSERT INTO "${schema}".outbox (id, subject, payload, correlation_id, occurred_at)
       VALUES ($1, 'cluster.evt.created', $2, 'corr', now())`,
      [id, JSON.stringify(PAYLOAD)],
    );
    const runner = dataSource.createQueryRunner();
    try {
      await migration!.down(runner);
      expect(await payloadColumn(schema)).toBe('jsonb');
      expect(await storedPayload(schema, id)).toEqual(PAYLOAD);
      await migration!.up(runner);
    } finally {
      await runner.release();
    }
    expect(await payloadColumn(schema)).toBe('json');
    expect(await storedPayload(schema, id)).toEqual(PAYLOAD);
  });
});
