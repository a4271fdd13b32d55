import { MESSAGING_ENTITIES, type AppDataSourceSpec } from '@app/database';
import { MIGRATIONS } from './migrations/index.js';
import { DeletedClusterEntity } from './pods/deleted-clusters/deleted-cluster.entity.js';
import { PodEntity } from './pods/pod.entity.js';
import { HostStartFailuresEntity } from './pods/start-failures/host-start-failures.entity.js';
import { PodUsageEntity } from './pods/usage/pod-usage.entity.js';
import { RegistryAuthEntity } from './registry-auth/registry-auth.entity.js';
import { SpendLimitEntity } from './spend/spend-limit.entity.js';
import { TemplateEntity } from './templates/template.entity.js';

/** pod-lifecycle owns the `pod_lifecycle` schema; nobody else writes it. */
export const DATA_SOURCE_SPEC: AppDataSourceSpec = {
  schema: 'pod_lifecycle',
  entities: [
    ...MESSAGING_ENTITIES,
    RegistryAuthEntity,
    TemplateEntity,
    PodEntity,
    PodUsageEntity,
    DeletedClusterEntity,
    HostStartFailuresEntity,
    SpendLimitEntity,
  ],
  migrations: MIGRATIONS,
};
