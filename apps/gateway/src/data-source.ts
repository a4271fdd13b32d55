import { MESSAGING_ENTITIES, type AppDataSourceSpec } from '@app/database';
import { ApiKeyEntity } from './accounts/api-key.entity.js';
import { UserEntity } from './accounts/user.entity.js';
import { AuditEntryEntity } from './audit/audit-entry.entity.js';
import { SshKeyEntity } from './accounts/ssh-key.entity.js';
import { TeamMemberEntity } from './accounts/team-member.entity.js';
import { TeamEntity } from './accounts/team.entity.js';
import { MIGRATIONS } from './migrations/index.js';
import { RateLimitCounterEntity } from './rate-limit/rate-limit-counter.entity.js';
import { RateLimitOverrideEntity } from './rate-limit/rate-limit-override.entity.js';
import { SCHEMA } from './schema.js';
import { ConsoleSessionEntity } from './sso/console-session.entity.js';
import { SsoLoginEntity } from './sso/sso-login.entity.js';

/** The gateway's entities, in its own schema. */
export const DATA_SOURCE_SPEC: AppDataSourceSpec = {
  schema: SCHEMA,
  entities: [
    ...MESSAGING_ENTITIES,
    UserEntity,
    ApiKeyEntity,
    SshKeyEntity,
    TeamEntity,
    TeamMemberEntity,
    RateLimitCounterEntity,
    RateLimitOverrideEntity,
    ConsoleSessionEntity,
    SsoLoginEntity,
    AuditEntryEntity,
  ],
  migrations: MIGRATIONS,
};
