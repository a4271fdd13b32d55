import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource, type MigrationInterface, type QueryRunner } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import { appDataSourceOptions, runAppMigrations, type AppDataSourceSpec } from './data-source.js';
import { DatabaseHealth } from './database.module.js';

/** Readiness of the database against real Postgres: reachable, and every committed migration recorded as applied. */

class Probe1700000000001 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE TABLE health_probe.probe (id int PRIMARY KEY)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE health_probe.probe');
  }
}

class Later1700000000002 implements MigrationInterface {
  async up(): Promise<void> {}

  async down(): Promise<void> {}
}

const spec = (migrations: AppDataSourceSpec['migrations']): AppDataSourceSpec => ({
  schema: 'health_probe',
  entities: [],
  migrations,
});

let db: TestDatabase;
const dataSources: DataSource[] = [];

async function health(migrations: AppDataSourceSpec['migrations']): Promise<DatabaseHealth> {
  const dataSource = new DataSource(appDataSourceOptions(spec(migrations), db.url, 1));
  await dataSource.initialize();
  dataSources.push(dataSource);
  return new DatabaseHealth(dataSource);
}

beforeAll(async () => {
  db = await createTestDatabase('database_health', { apps: [] });
});

afterAll(async () => {
  await Promise.all(dataSources.filter((d) => d.isInitialized).map((d) => d.destroy()));
  await db?.drop();
});

describe('DatabaseHealth', () => {
  it('reports every committed migration pending while nothing was migrated (no migrations table yet)', async () => {
    const probe = await health([Probe1700000000001]);
    expect(await probe.pendingMigrations()).toEqual(['Probe1700000000001']);
    expect(await probe.check()).toMatch(/migrations are pending/);
  });

  it('is healthy once the committed migrations are applied', async () => {
    await runAppMigrations(appDataSourceOptions(spec([Probe1700000000001]), db.url, 1));
    const probe = await health([Probe1700000000001]);
    expect(await probe.pendingMigrations()).toEqual([]);
    expect(await probe.check()).toBeNull();
  });

  it('names a committed migration that was not applied', async () => {
    const probe = await health([Probe1700000000001, Later1700000000002]);
    expect(await probe.pendingMigrations()).toEqual(['Later1700000000002']);
    expect(await probe.check()).toMatch(/migrations are pending/);
  });

  it('reports an unreachable database', async () => {
    const probe = await health([Probe1700000000001]);
    await dataSources.at(-1)!.destroy();
    expect(await probe.check()).toMatch(/postgres unreachable/);
  });
});
