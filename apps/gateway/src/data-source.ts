import { MESSAGING_ENTITIES, type AppDataSourceSpec } from '@app/database';
import { ApiKeyEntity } from './accounts/api-key.entity.js';
import { UserEntity } from './accounts/user.entity.js';
import { MIGRATIONS } from './migrations/index.js';

/** gateway owns the `gateway` schema (users, API keys); nobody else writes it. */
export const DATA_SOURCE_SPEC: AppDataSourceSpec = {
  schema: 'gateway',
  entities: [...MESSAGING_ENTITIES, UserEntity, ApiKeyEntity],
  migrations: MIGRATIONS,
};
