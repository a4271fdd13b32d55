import { expect } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { Subjects, type TakeResult } from '@app/contracts';
import { NatsClient } from '@app/messaging';
import { DATA_SOURCE_SPEC } from '../../apps/queue-broker/src/data-source.js';
import { JobChunksRepository } from '../../apps/queue-broker/src/jobs/job-chunks.repository.js';
import { JobLeasesRepository } from '../../apps/queue-broker/src/jobs/job-leases.repository.js';
import { JobLifecycle } from '../../apps/queue-broker/src/jobs/job-lifecycle.js';
import { JobTakes } from '../../apps/queue-broker/src/jobs/job-takes.js';
import { JobsRepository } from '../../apps/queue-broker/src/jobs/jobs.repository.js';
import { newQueuedJob, type SubmittedJob } from '../../apps/queue-broker/src/jobs/new-job.js';
import { WorkerStartsRepository } from '../../apps/queue-broker/src/metrics/worker-starts.repository.js';
import { PayloadStore } from '../../apps/queue-broker/src/payloads/payload-store.js';
import { QueueBrokerConfig } from '../../apps/queue-broker/src/queue-broker.config.js';
import { JobResults } from '../../apps/queue-broker/src/workers/job-results.js';
import { RegisterWorkerHandler } from '../../apps/queue-broker/src/workers/register-worker/register-worker.handler.js';
import { TakeJobsHandler } from '../../apps/queue-broker/src/workers/take-jobs/take-jobs.handler.js';
import { WorkersRepository } from '../../apps/queue-broker/src/workers/workers.repository.js';
import { HandlerHarness, type SendOptions } from './handler-harness.js';
import { deleteStreams } from './system.js';
import { testEnv } from './test-env.js';

/**
 * queue-broker's worker commands over its real schema (HandlerHarness), for the medium tests of what a worker posts:
 * the repositories and the result logic as the app wires them, the register and take handlers registered (the
 * test registers the handler it is about), the payload store on the run's NATS.
 */
export class WorkerCommands {
  private constructor(
    readonly harness: HandlerHarness,
    private readonly nats: NatsClient,
    private readonly prefix: string,
    readonly jobs: JobsRepository,
    readonly workers: WorkersRepository,
    readonly results: JobResults,
    readonly takes: JobTakes,
    readonly payloads: PayloadStore,
  ) {}

  static async start(label: string): Promise<WorkerCommands> {
    const prefix = `${testEnv().natsPrefix}${label.slice(0, 4)}${randomBytes(3).toString('hex')}`;
    const harness = await HandlerHarness.start(`queue_broker_${label}`, 'queue-broker', DATA_SOURCE_SPEC);
    const nats = await NatsClient.connect(testEnv().natsUrl, prefix, `${label}-int-spec`);
    const config = new QueueBrokerConfig();
    const payloads = new PayloadStore(nats, config);
    await payloads.onModuleInit();
    const jobs = new JobsRepository(harness.dataSource);
    const workers = new WorkersRepository(harness.dataSource);
    const results = new JobResults(jobs, new JobLifecycle(jobs, new JobChunksRepository()), payloads);
    const takes = new JobTakes(new JobLeasesRepository(), workers, payloads, config);
    harness.register(
      new RegisterWorkerHandler(workers, new WorkerStartsRepository()),
      new TakeJobsHandler(takes),
    );
    return new WorkerCommands(harness, nats, prefix, jobs, workers, results, takes, payloads);
  }

  /**
   * `count` queued jobs of a fresh endpoint (`job-<name>-<n>`, inserted as a submit records them), taken by its
   * worker in one take at `at(second + 1)`; the worker and the job ids.
   */
  async leased(
    name: string,
    count: number,
    at: (second: number) => SendOptions,
    second: number,
    job: Partial<Pick<SubmittedJob, 'sync' | 'webhook'>> = {},
  ) {
    const worker = { endpointId: `ep-${name}`, workerId: `worker-${name}` };
    await this.harness.send(Subjects.worker.register, worker, at(second));
    const ids: string[] = [];
    for (let n = 0; n < count; n += 1) {
      const queued = newQueuedJob(
        {
          id: `job-${name}-${n}`,
          endpointId: worker.endpointId,
          ownerId: 'user-alice',
          sync: false,
          input: { n },
          ...job,
        },
        new Date(at(second).issuedAt!),
        60_000,
      );
      await this.jobs.insertMany([queued], this.harness.dataSource.manager);
      ids.push(queued.id);
    }
    const taken = (await this.harness.send(
      Subjects.worker.take,
      { ...worker, batchSize: count },
      at(second + 1),
    )) as TakeResult;
    expect(taken.jobs.map((j) => j.id).sort()).toEqual([...ids].sort());
    return { worker, ids };
  }

  async stop(): Promise<void> {
    await this.harness.stop();
    await this.nats.drain();
    await deleteStreams(this.prefix);
  }
}
