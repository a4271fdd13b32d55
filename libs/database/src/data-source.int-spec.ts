import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import { appDataSourceOptions } from './data-source.js';

let database: TestDatabase | undefined;
let dataSource: DataSource;

beforeAll(async () => {
  database = await createTestDatabase('data_source');
  dataSource = new DataSource(
    appDataSourceOptions({ schema: 'data_source_spec', entities: [], migrations: [] }, database.url, 2),
  );
  await dataSource.initialize();
});

afterAll(async () => {
  if (dataSource?.isInitialized) await dataSource.destroy();
  await database?.drop();
});

describe('appDataSourceOptions', () => {
  it('opens connections without JIT, whatever the server default (docs/adr/0046)', async () => {
    const show = async () => (await dataSource.query<{ jit: string }[]>('SHOW jit'))[0].jit;
    // Two at once: two connections of the pool.
    expect(await Promise.all([show(), show()])).toEqual(['off', 'off']);
  });

  it('keeps the statement timeout', async () => {
    const rows = await dataSource.query<{ statement_timeout: string }[]>('SHOW statement_timeout');
    expect(rows[0].statement_timeout).toBe('30s');
  });
});
