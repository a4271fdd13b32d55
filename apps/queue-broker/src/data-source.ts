import { MESSAGING_ENTITIES, type AppDataSourceSpec } from '@app/database';
import { MIGRATIONS } from './migrations/index.js';

/** queue-broker owns the `queue_broker` schema; nobody else writes it. */
export const DATA_SOURCE_SPEC: AppDataSourceSpec = {
  schema: 'queue_broker',
  entities: [...MESSAGING_ENTITIES],
  migrations: MIGRATIONS,
};
