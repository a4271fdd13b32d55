import { MESSAGING_ENTITIES, type AppDataSourceSpec } from '@app/database';
import { MIGRATIONS } from './migrations/index.js';

/** endpoint-autoscaler owns the `endpoint_autoscaler` schema; nobody else writes it. */
export const DATA_SOURCE_SPEC: AppDataSourceSpec = {
  schema: 'endpoint_autoscaler',
  entities: [...MESSAGING_ENTITIES],
  migrations: MIGRATIONS,
};
