import { randomBytes } from 'node:crypto';
import { NatsClient } from '@app/messaging';
import { DATA_SOURCE_SPEC } from '../../apps/queue-broker/src/data-source.js';
import { CancelJobHandler } from '../../apps/queue-broker/src/jobs/cancel-job/cancel-job.handler.js';
import { JobChunksRepository } from '../../apps/queue-broker/src/jobs/job-chunks.repository.js';
import { JobLeasesRepository } from '../../apps/queue-broker/src/jobs/job-leases.repository.js';
import { JobLifecycle } from '../../apps/queue-broker/src/jobs/job-lifecycle.js';
import { JobTakes } from '../../apps/queue-broker/src/jobs/job-takes.js';
import { JobsRepository } from '../../apps/queue-broker/src/jobs/jobs.repository.js';
import { PurgeQueueHandler } from '../../apps/queue-broker/src/jobs/purge-queue/purge-queue.handler.js';
import { ReadStreamHandler } from '../../apps/queue-broker/src/jobs/read-stream/read-stream.handler.js';
import { RetryJobHandler } from '../../apps/queue-broker/src/jobs/retry-job/retry-job.handler.js';
import { SetJobTtlHandler } from '../../apps/queue-broker/src/jobs/set-job-ttl/set-job-ttl.handler.js';
import { SubmitJobHandler } from '../../apps/queue-broker/src/jobs/submit-job/submit-job.handler.js';
import { SubmitJobs } from '../../apps/queue-broker/src/jobs/submit-jobs.js';
import { SweepJobsHandler } from '../../apps/queue-broker/src/jobs/sweep-jobs/sweep-jobs.handler.js';
import { PayloadStore } from '../../apps/queue-broker/src/payloads/payload-store.js';
import { QueueBrokerConfig } from '../../apps/queue-broker/src/queue-broker.config.js';
import { RotateWebhookSecretHandler } from '../../apps/queue-broker/src/webhooks/rotate-webhook-secret/rotate-webhook-secret.handler.js';
import { WebhookSecretsRepository } from '../../apps/queue-broker/src/webhooks/webhook-secrets.repository.js';
import { CollectStopsHandler } from '../../apps/queue-broker/src/workers/collect-stops/collect-stops.handler.js';
import { JobDoneHandler } from '../../apps/queue-broker/src/workers/job-done/job-done.handler.js';
import { JobResults } from '../../apps/queue-broker/src/workers/job-results.js';
import { JobStreamHandler } from '../../apps/queue-broker/src/workers/job-stream/job-stream.handler.js';
import { PingWorkerHandler } from '../../apps/queue-broker/src/workers/ping-worker/ping-worker.handler.js';
import { RegisterWorkerHandler } from '../../apps/queue-broker/src/workers/register-worker/register-worker.handler.js';
import { TakeJobsHandler } from '../../apps/queue-broker/src/workers/take-jobs/take-jobs.handler.js';
import { WorkersRepository } from '../../apps/queue-broker/src/workers/workers.repository.js';
import { HandlerHarness } from './handler-harness.js';
import { deleteStreams } from './system.js';
import { testEnv } from './test-env.js';

/** queue-broker's job and worker command handlers, as the app wires them, over a harness of their own. */
export interface QueueBrokerCommands {
  harness: HandlerHarness;
  stop(): Promise<void>;
}

/**
 * queue-broker's job and worker command handlers over its real schema (its migrations), an in-process bus, and
 * the payload store on the run's NATS (its own prefix), for the medium tests of a job's life from submit to take,
 * stream and done.
 */
export async function startQueueBrokerCommands(label: string): Promise<QueueBrokerCommands> {
  const prefix = `${testEnv().natsPrefix}${label.slice(0, 4)}${randomBytes(3).toString('hex')}`;
  const harness = await HandlerHarness.start(`queue_broker_${label}`, 'queue-broker', DATA_SOURCE_SPEC);
  const nats = await NatsClient.connect(testEnv().natsUrl, prefix, `${label}-int-spec`);
  const config = new QueueBrokerConfig();
  const payloads = new PayloadStore(nats, config);
  await payloads.onModuleInit();
  const { dataSource } = harness;
  const jobs = new JobsRepository(dataSource);
  const workers = new WorkersRepository(dataSource);
  const chunks = new JobChunksRepository();
  const lifecycle = new JobLifecycle(jobs, chunks);
  const takes = new JobTakes(new JobLeasesRepository(), workers, payloads, config);
  harness.register(
    new SubmitJobHandler(new SubmitJobs(jobs, lifecycle, takes), payloads, config),
    new CancelJobHandler(jobs, lifecycle),
    new RetryJobHandler(jobs, lifecycle),
    new PurgeQueueHandler(jobs, lifecycle),
    new SetJobTtlHandler(jobs),
    new ReadStreamHandler(jobs, chunks, payloads),
    new SweepJobsHandler(jobs, workers, lifecycle, config),
    new RotateWebhookSecretHandler(new WebhookSecretsRepository(dataSource)),
    new RegisterWorkerHandler(workers),
    new TakeJobsHandler(takes),
    new JobDoneHandler(jobs, workers, new JobResults(jobs, lifecycle, payloads)),
    new JobStreamHandler(jobs, chunks, workers, lifecycle, payloads),
    new PingWorkerHandler(jobs, workers, lifecycle, config),
    new CollectStopsHandler(jobs, workers),
  );
  return {
    harness,
    async stop() {
      await harness.stop();
      await nats.drain();
      await deleteStreams(prefix);
    },
  };
}
