import { CancelJobHandler } from '../../apps/queue-broker/src/jobs/cancel-job/cancel-job.handler.js';
import { JobChunksRepository } from '../../apps/queue-broker/src/jobs/job-chunks.repository.js';
import { JobHistoryHandler } from '../../apps/queue-broker/src/jobs/job-history/job-history.handler.js';
import { JobHistoryRepository } from '../../apps/queue-broker/src/jobs/job-history/job-history.repository.js';
import { JobLifecycle } from '../../apps/queue-broker/src/jobs/job-lifecycle.js';
import { PurgeQueueHandler } from '../../apps/queue-broker/src/jobs/purge-queue/purge-queue.handler.js';
import { ReadStreamHandler } from '../../apps/queue-broker/src/jobs/read-stream/read-stream.handler.js';
import { RetryJobHandler } from '../../apps/queue-broker/src/jobs/retry-job/retry-job.handler.js';
import { SetJobTtlHandler } from '../../apps/queue-broker/src/jobs/set-job-ttl/set-job-ttl.handler.js';
import { SubmitJobHandler } from '../../apps/queue-broker/src/jobs/submit-job/submit-job.handler.js';
import { SubmitJobs } from '../../apps/queue-broker/src/jobs/submit-jobs.js';
import { SweepJobsHandler } from '../../apps/queue-broker/src/jobs/sweep-jobs/sweep-jobs.handler.js';
import { WorkerStartsRepository } from '../../apps/queue-broker/src/metrics/worker-starts.repository.js';
import { QueueBrokerConfig } from '../../apps/queue-broker/src/queue-broker.config.js';
import { RotateWebhookSecretHandler } from '../../apps/queue-broker/src/webhooks/rotate-webhook-secret/rotate-webhook-secret.handler.js';
import { WebhookSecretsRepository } from '../../apps/queue-broker/src/webhooks/webhook-secrets.repository.js';
import { CollectStopsHandler } from '../../apps/queue-broker/src/workers/collect-stops/collect-stops.handler.js';
import { JobDoneHandler } from '../../apps/queue-broker/src/workers/job-done/job-done.handler.js';
import { JobStreamHandler } from '../../apps/queue-broker/src/workers/job-stream/job-stream.handler.js';
import { PingWorkerHandler } from '../../apps/queue-broker/src/workers/ping-worker/ping-worker.handler.js';
import { WorkerCommands } from './queue-broker-workers.js';

/**
 * queue-broker's job and worker command handlers over its real schema (its migrations), an in-process bus, and
 * the payload store on the run's NATS (its own prefix), as the app wires them: the worker commands' harness
 * (queue-broker-workers.ts) with every other job and worker command registered, for the medium tests of a job's
 * life from submit to take, stream and done (and its history's queries).
 */
export async function startQueueBrokerCommands(label: string): Promise<WorkerCommands> {
  const commands = await WorkerCommands.start(label);
  const { harness, jobs, workers, results, takes, payloads } = commands;
  const config = new QueueBrokerConfig();
  const chunks = new JobChunksRepository();
  const lifecycle = new JobLifecycle(jobs, chunks);
  const history = new JobHistoryRepository(harness.dataSource);
  harness.register(
    new SubmitJobHandler(new SubmitJobs(jobs, lifecycle, takes), payloads, config),
    new CancelJobHandler(jobs, lifecycle),
    new RetryJobHandler(jobs, lifecycle),
    new PurgeQueueHandler(jobs, lifecycle),
    new SetJobTtlHandler(jobs),
    new ReadStreamHandler(jobs, chunks, payloads),
    new SweepJobsHandler(jobs, workers, lifecycle, config, new WorkerStartsRepository(), history),
    new JobHistoryHandler(history, payloads),
    new RotateWebhookSecretHandler(new WebhookSecretsRepository(harness.dataSource)),
    new JobDoneHandler(jobs, workers, results),
    new JobStreamHandler(jobs, chunks, workers, lifecycle, payloads),
    new PingWorkerHandler(jobs, workers, lifecycle, config),
    new CollectStopsHandler(jobs, workers),
  );
  return commands;
}
