import {
  Subjects,
  type JobAccepted,
  type JobChangedEvent,
  type JobChangedManyEvent,
  type JobDoneResult,
  type JobQueuedEvent,
  type JobQueuedManyEvent,
  type TakeResult,
} from '@app/contracts';
import { MetricsRepository } from '../../apps/queue-broker/src/metrics/metrics.repository.js';
import { RollupDeltas } from '../../apps/queue-broker/src/metrics/rollup-deltas.js';
import { QueueBrokerConfig } from '../../apps/queue-broker/src/queue-broker.config.js';
import type { HandlerHarness, SendOptions } from './handler-harness.js';
import { startQueueBrokerCommands } from './queue-broker-commands.js';
import type { WorkerCommands } from './queue-broker-workers.js';

/** `seconds` before `from` (the test's now), as a command's time. */
export const ago = (from: number, seconds: number): SendOptions => ({
  issuedAt: new Date(from - seconds * 1000).toISOString(),
});

/**
 * The config the broker's queries are read with here: workers lost after an hour of silence and initializing for up
 * to two, so a test can date its commands minutes back (the handlers read the clock) and still find its workers
 * alive, or an hour back to find one lost.
 */
export function slowClockConfig(): QueueBrokerConfig {
  return Object.assign(new QueueBrokerConfig(), {
    WORKER_LOST_AFTER_MS: 3_600_000,
    WORKER_INIT_TIMEOUT_MS: 7_200_000,
  });
}

/**
 * queue-broker's job and worker commands over its real schema and the run's NATS (queue-broker-commands.ts), for
 * the medium tests of its queries; their job events folded into the metrics rollups as the metrics leader folds
 * them. A test registers the query handler it is about on `harness`.
 */
export class JobCommands {
  readonly harness: HandlerHarness;
  readonly metrics: MetricsRepository;
  /** The outbox sequence folded up to. */
  private folded = '0';

  private constructor(readonly workerCommands: WorkerCommands) {
    this.harness = workerCommands.harness;
    this.metrics = new MetricsRepository(this.harness.dataSource);
  }

  static async start(label: string): Promise<JobCommands> {
    return new JobCommands(await startQueueBrokerCommands(label));
  }

  submit(endpointId: string, input: unknown, options: SendOptions, more: object = {}): Promise<JobAccepted> {
    return this.harness.send(Subjects.job.submit, { endpointId, sync: false, input, ...more }, options);
  }

  register(endpointId: string, workerId: string, options: SendOptions): Promise<null> {
    return this.harness.send(Subjects.worker.register, { endpointId, workerId }, options);
  }

  /** The worker's job-take: what was queued for its endpoint, leased to it (nothing at all counts as a poll). */
  async take(endpointId: string, workerId: string, options: SendOptions, batchSize = 5): Promise<TakeResult> {
    return (await this.harness.send(
      Subjects.worker.take,
      { endpointId, workerId, batchSize },
      options,
    )) as TakeResult;
  }

  /** The worker's job-done: `output`, or the handler's `error`. */
  done(
    endpointId: string,
    workerId: string,
    jobId: string,
    result: { output: unknown } | { error: string },
    options: SendOptions,
  ): Promise<JobDoneResult> {
    const body =
      'output' in result ? { output: result.output, hasOutput: true } : { ...result, hasOutput: false };
    return this.harness.send(
      Subjects.worker.done,
      { endpointId, workerId, jobId, ...body, progress: false, stopPod: false },
      options,
    );
  }

  /** The worker's heartbeat, listing `jobIds`; `unhealthy` with its reason. */
  ping(
    endpointId: string,
    workerId: string,
    jobIds: string[],
    options: SendOptions,
    health: { unhealthy: boolean; reason?: string; version?: string } = { unhealthy: false },
  ): Promise<unknown> {
    return this.harness.send(Subjects.worker.ping, { endpointId, workerId, jobIds, ...health }, options);
  }

  /**
   * Folds the job events the commands committed since the last fold into the metrics rollups, as the metrics leader
   * folds them from the events stream (JobEventsFolder: each at its time, a `-many` event as its jobs' own events):
   * what /health and the metrics read. Here they come from the outbox, not relayed through NATS.
   */
  async foldEvents(): Promise<void> {
    const rows = await this.harness.dataSource.query<
      { seq: string; subject: string; payload: unknown; occurred_at: Date }[]
    >('SELECT seq, subject, payload, occurred_at FROM queue_broker.outbox WHERE seq > $1 ORDER BY seq', [
      this.folded,
    ]);
    const deltas = new RollupDeltas();
    for (const { seq, subject, payload, occurred_at: at } of rows) {
      this.folded = seq;
      if (subject === Subjects.job.changed) deltas.jobChanged(payload as JobChangedEvent, at);
      else if (subject === Subjects.job.queued) deltas.jobQueued(payload as JobQueuedEvent, at);
      else if (subject === Subjects.job.changedMany) {
        for (const job of (payload as JobChangedManyEvent).jobs) deltas.jobChanged(job, at);
      } else if (subject === Subjects.job.queuedMany) {
        for (const job of (payload as JobQueuedManyEvent).jobs) deltas.jobQueued(job, at);
      }
    }
    await this.metrics.transaction((manager) => this.metrics.add(deltas, manager));
  }

  stop(): Promise<void> {
    return this.workerCommands.stop();
  }
}
