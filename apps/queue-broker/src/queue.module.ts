import { Module } from '@nestjs/common';
import { MetricsModule } from './metrics/metrics.module.js';
import { CancelJobHandler } from './jobs/cancel-job/cancel-job.handler.js';
import { EndpointHealthHandler } from './jobs/endpoint-health/endpoint-health.handler.js';
import { ListWorkersHandler } from './workers/list-workers/list-workers.handler.js';
import { GetJobHandler } from './jobs/get-job/get-job.handler.js';
import { HandBackLeasesHandler } from './jobs/hand-back-leases/hand-back-leases.handler.js';
import { JobHistoryHandler } from './jobs/job-history/job-history.handler.js';
import { JobHistoryRepository } from './jobs/job-history/job-history.repository.js';
import { JobLifecycle } from './jobs/job-lifecycle.js';
import { JobSweeper } from './jobs/job-sweeper.js';
import { JobChunksRepository } from './jobs/job-chunks.repository.js';
import { JobLeasesRepository } from './jobs/job-leases.repository.js';
import { JobTakes } from './jobs/job-takes.js';
import { JobsRepository } from './jobs/jobs.repository.js';
import { PurgeQueueHandler } from './jobs/purge-queue/purge-queue.handler.js';
import { QueueStatsHandler } from './jobs/queue-stats/queue-stats.handler.js';
import { QueueStatsReader } from './jobs/queue-stats/queue-stats.reader.js';
import { ReadStreamHandler } from './jobs/read-stream/read-stream.handler.js';
import { RetryJobHandler } from './jobs/retry-job/retry-job.handler.js';
import { SetJobTtlHandler } from './jobs/set-job-ttl/set-job-ttl.handler.js';
import { SubmitJobHandler } from './jobs/submit-job/submit-job.handler.js';
import { SubmitJobs } from './jobs/submit-jobs.js';
import { SubmitManyHandler } from './jobs/submit-many/submit-many.handler.js';
import { SweepJobsHandler } from './jobs/sweep-jobs/sweep-jobs.handler.js';
import { WorkerRoster } from './jobs/worker-roster.js';
import { PayloadStore } from './payloads/payload-store.js';
import { GetWebhookSecretHandler } from './webhooks/get-webhook-secret/get-webhook-secret.handler.js';
import { RotateWebhookSecretHandler } from './webhooks/rotate-webhook-secret/rotate-webhook-secret.handler.js';
import { WebhookDeliveriesRepository } from './webhooks/webhook-deliveries.repository.js';
import { WebhookSecretsRepository } from './webhooks/webhook-secrets.repository.js';
import { WebhookSender } from './webhooks/webhook-sender.js';
import { CollectStopsHandler } from './workers/collect-stops/collect-stops.handler.js';
import { DoneManyHandler } from './workers/done-many/done-many.handler.js';
import { JobDoneHandler } from './workers/job-done/job-done.handler.js';
import { JobResults } from './workers/job-results.js';
import { JobStreamHandler } from './workers/job-stream/job-stream.handler.js';
import { PingWorkerHandler } from './workers/ping-worker/ping-worker.handler.js';
import { RegisterWorkerHandler } from './workers/register-worker/register-worker.handler.js';
import { TakeJobsHandler } from './workers/take-jobs/take-jobs.handler.js';
import { WorkersRepository } from './workers/workers.repository.js';

/** The `job` and `worker` domains: jobs, their leases to workers, stream chunks, retention, signed webhooks. */
@Module({
  imports: [MetricsModule],
  providers: [
    JobsRepository,
    JobLeasesRepository,
    JobChunksRepository,
    WorkersRepository,
    // jobs asks its questions about workers through WorkerRoster (jobs/worker-roster.ts); the workers answer.
    { provide: WorkerRoster, useExisting: WorkersRepository },
    JobLifecycle,
    JobTakes,
    PayloadStore,
    QueueStatsReader,
    JobSweeper,
    WebhookSender,
    WebhookDeliveriesRepository,
    WebhookSecretsRepository,
    RotateWebhookSecretHandler,
    GetWebhookSecretHandler,
    SubmitJobs,
    SubmitJobHandler,
    SubmitManyHandler,
    CancelJobHandler,
    RetryJobHandler,
    PurgeQueueHandler,
    SetJobTtlHandler,
    ReadStreamHandler,
    SweepJobsHandler,
    HandBackLeasesHandler,
    GetJobHandler,
    JobHistoryRepository,
    JobHistoryHandler,
    EndpointHealthHandler,
    ListWorkersHandler,
    QueueStatsHandler,
    TakeJobsHandler,
    JobResults,
    JobDoneHandler,
    DoneManyHandler,
    JobStreamHandler,
    PingWorkerHandler,
    CollectStopsHandler,
    RegisterWorkerHandler,
  ],
})
export class QueueModule {}
