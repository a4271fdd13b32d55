import { MESSAGING_ENTITIES, type AppDataSourceSpec } from '@app/database';
import { EndpointCounterEntity } from './jobs/endpoint-counter.entity.js';
import { IgnoredResultEntity } from './jobs/ignored-result.entity.js';
import { JobAttemptEntity } from './jobs/job-attempt.entity.js';
import { JobHistoryEntity } from './jobs/job-history/job-history.entity.js';
import { JobStreamChunkEntity } from './jobs/job-stream-chunk.entity.js';
import { JobEntity } from './jobs/job.entity.js';
import { CountedColdStartEntity } from './metrics/counted-cold-start.entity.js';
import { EndpointRollupEntity } from './metrics/endpoint-rollup.entity.js';
import { MetricsCursorEntity } from './metrics/metrics-cursor.entity.js';
import { WorkerStartEntity } from './metrics/worker-start.entity.js';
import { MIGRATIONS } from './migrations/index.js';
import { WebhookDeliveryEntity } from './webhooks/webhook-delivery.entity.js';
import { WebhookSecretEntity } from './webhooks/webhook-secret.entity.js';
import { WorkerEntity } from './workers/worker.entity.js';

/** queue-broker owns the `queue_broker` schema; nobody else writes it. */
export const DATA_SOURCE_SPEC: AppDataSourceSpec = {
  schema: 'queue_broker',
  entities: [
    ...MESSAGING_ENTITIES,
    JobEntity,
    JobStreamChunkEntity,
    JobAttemptEntity,
    JobHistoryEntity,
    IgnoredResultEntity,
    EndpointCounterEntity,
    WorkerEntity,
    WebhookDeliveryEntity,
    WebhookSecretEntity,
    EndpointRollupEntity,
    MetricsCursorEntity,
    CountedColdStartEntity,
    WorkerStartEntity,
  ],
  migrations: MIGRATIONS,
};
