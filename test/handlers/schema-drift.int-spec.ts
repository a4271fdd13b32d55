import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { appDataSourceOptions, type AppDataSourceSpec } from '@app/database';
import { DATA_SOURCE_SPEC as SCHEDULER } from '../../apps/cluster-scheduler/src/data-source.js';
import { DATA_SOURCE_SPEC as AUTOSCALER } from '../../apps/endpoint-autoscaler/src/data-source.js';
import { DATA_SOURCE_SPEC as GATEWAY } from '../../apps/gateway/src/data-source.js';
import { DATA_SOURCE_SPEC as PODS } from '../../apps/pod-lifecycle/src/data-source.js';
import { DATA_SOURCE_SPEC as BROKER } from '../../apps/queue-broker/src/data-source.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';

/**
 * Each app's entities describe exactly the schema its committed migrations build: what TypeORM would change to make
 * the database match the entities (the diff `scripts/generate-migration.mjs` turns into a migration) is nothing.
 * An entity changed without its migration (a column, a table, an index's name or columns) fails here, not on a
 * deployment. TypeORM's diff does not compare an index's WHERE clause: a partial index whose condition changes gets a
 * new name (as jobs_endpoint_active_idx did), which it does compare.
 */

const SPECS: AppDataSourceSpec[] = [GATEWAY, BROKER, PODS, SCHEDULER, AUTOSCALER];

let database: TestDatabase | undefined;

beforeAll(async () => {
  database = await createTestDatabase('schema_drift');
});

afterAll(async () => {
  await database?.drop();
});

describe.each(SPECS.map((spec) => [spec.schema, spec] as const))('%s', (_schema, spec) => {
  it('has entities that agree with its migrations', async () => {
    const dataSource = new DataSource(
      appDataSourceOptions({ ...spec, migrations: [] }, database!.url, 1, 'schema-drift-int-spec'),
    );
    await dataSource.initialize();
    try {
      const sql = await dataSource.driver.createSchemaBuilder().log();
      expect(sql.upQueries.map((query) => query.query)).toEqual([]);
    } finally {
      await dataSource.destroy();
    }
  });
});
