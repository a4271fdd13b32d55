import { Injectable, Logger } from '@nestjs/common';
import { DeliverPolicy } from '@nats-io/jetstream';
import {
  Domain,
  Streams,
  Subjects,
  domainEventsFilter,
  type JobChangedEvent,
  type JobChangedManyEvent,
  type JobQueuedEvent,
  type JobQueuedManyEvent,
} from '@app/contracts';
import { NatsClient, type EventEnvelope } from '@app/messaging';
import { QueueBrokerConfig } from '../../queue-broker.config.js';
import { endpointPrometheus } from '../endpoint-metrics.prometheus.js';
import { MetricsRepository } from '../metrics.repository.js';
import { RollupDeltas } from '../rollup-deltas.js';

/** The cursor's name in `metrics_cursors`. */
export const JOB_EVENTS_CURSOR = 'job-events';

/**
 * Folds `job.evt.changed` (a job finished: its status, delay and execution time) and `job.evt.queued` (a retry),
 * and their `-many` forms (a command's jobs in one event), into the rollups, from the events stream, on the metrics
 * leader only. It reads with an ordered consumer from the sequence after its cursor, and commits each batch's row
 * deltas with the new cursor in one transaction, so every event counts exactly once, whatever restarts or
 * handovers happen (docs/adr/0022-endpoint-metrics.md). The job path itself writes nothing for it.
 */
@Injectable()
export class JobEventsFolder {
  private readonly logger = new Logger('metrics');

  constructor(
    private readonly nats: NatsClient,
    private readonly metrics: MetricsRepository,
    private readonly config: QueueBrokerConfig,
  ) {}

  /** Runs until `leading()` turns false (checked between batches, at most a second apart). */
  async run(leading: () => boolean): Promise<void> {
    const stream = this.nats.streamName(Streams.Events);
    let cursor = await this.metrics.cursor(JOB_EVENTS_CURSOR);
    const { state } = await this.nats.jsm.streams.info(stream);
    if (cursor > state.last_seq) {
      // The stream was recreated: its sequences start over.
      this.logger.warn(
        `events stream is at ${state.last_seq}, the metrics cursor at ${cursor}: starting over`,
      );
      cursor = 0;
    }
    const consumer = await this.nats.js.consumers.get(stream, {
      // One filter (a list of them needs NATS 2.10): the job domain's events, of which two matter here.
      filter_subjects: this.nats.subject(domainEventsFilter(Domain.Job)),
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: cursor + 1,
    });
    while (leading()) {
      const messages = await consumer.fetch({ max_messages: this.config.METRICS_BATCH_MAX, expires: 1000 });
      const deltas = new RollupDeltas();
      const observed: (() => void)[] = [];
      let last = cursor;
      for await (const msg of messages) {
        last = msg.seq;
        const event = msg.json<EventEnvelope>();
        foldEvent(
          this.nats.unprefix(msg.subject),
          event.payload,
          new Date(event.occurredAt),
          deltas,
          observed,
        );
      }
      if (last === cursor) continue;
      await this.metrics.transaction(async (manager) => {
        await this.metrics.add(deltas, manager);
        if (!(await this.metrics.advanceCursor(JOB_EVENTS_CURSOR, cursor, last, manager))) {
          throw new Error('the metrics cursor moved under this replica (another one leads the metrics now)');
        }
      });
      cursor = last;
      for (const count of observed) count();
    }
  }
}

/**
 * Adds one job event to a batch's deltas, and to `observed` what it counts in Prometheus once the batch committed. A
 * `-many` event (a command's jobs in one; docs/adr/0013, "Batched job events") counts each of its jobs as
 * its own event would.
 */
function foldEvent(
  subject: string,
  payload: unknown,
  at: Date,
  deltas: RollupDeltas,
  observed: (() => void)[],
): void {
  const changed = (e: JobChangedEvent) => {
    deltas.jobChanged(e, at);
    observed.push(() => observeFinished(e));
  };
  const queued = (e: JobQueuedEvent) => {
    deltas.jobQueued(e, at);
    if (e.retried) observed.push(() => endpointPrometheus.jobsRetried.inc());
  };
  if (subject === Subjects.job.changed) changed(payload as JobChangedEvent);
  else if (subject === Subjects.job.queued) queued(payload as JobQueuedEvent);
  else if (subject === Subjects.job.changedMany) (payload as JobChangedManyEvent).jobs.forEach(changed);
  else if (subject === Subjects.job.queuedMany) (payload as JobQueuedManyEvent).jobs.forEach(queued);
}

const STATUS_LABELS: Partial<Record<JobChangedEvent['status'], string>> = {
  COMPLETED: 'completed',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
  TIMED_OUT: 'timed_out',
};

function observeFinished(event: JobChangedEvent): void {
  const status = STATUS_LABELS[event.status];
  if (!status) return;
  endpointPrometheus.jobsFinished.inc({ status });
  const delayMs = event.timing?.delayMs;
  const executionMs = event.timing?.executionMs;
  if (typeof delayMs === 'number') endpointPrometheus.delaySeconds.observe(delayMs / 1000);
  if (typeof executionMs === 'number') endpointPrometheus.executionSeconds.observe(executionMs / 1000);
}
