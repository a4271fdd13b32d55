import { DataSource } from 'typeorm';
import { MESSAGING_ENTITIES, appDataSourceOptions } from '@app/database';
import type { TestDatabase } from './test-database.js';

/**
 * An initialized data source on one app's schema of a test database (migrated by createTestDatabase) with only the
 * messaging tables' entities (processed commands, outbox), as the medium tests of libs/messaging use it.
 */
export async function messagingDataSource(
  database: TestDatabase,
  schema: string,
  poolSize: number,
  name: string,
): Promise<DataSource> {
  const dataSource = new DataSource(
    appDataSourceOptions(
      { schema, entities: MESSAGING_ENTITIES, migrations: [] },
      database.url,
      poolSize,
      name,
    ),
  );
  await dataSource.initialize();
  return dataSource;
}
