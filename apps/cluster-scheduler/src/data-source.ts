import { MESSAGING_ENTITIES, type AppDataSourceSpec } from '@app/database';
import { MIGRATIONS } from './migrations/index.js';

/** cluster-scheduler owns the `cluster_scheduler` schema; nobody else writes it. */
export const DATA_SOURCE_SPEC: AppDataSourceSpec = {
  schema: 'cluster_scheduler',
  entities: [...MESSAGING_ENTITIES],
  migrations: MIGRATIONS,
};
