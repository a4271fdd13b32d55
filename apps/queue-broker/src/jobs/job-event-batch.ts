import {
  Subjects,
  type EventPayload,
  type EventSubject,
  type JobChangedEvent,
  type JobQueuedEvent,
} from '@app/contracts';
import type { Tx } from './job-lifecycle.js';

/** The most jobs one batched event carries. */
export const BATCHED_EVENT_MAX_JOBS = 128;
/** The JSON bytes of the changed items one batched event carries at most (a finished job's view is up to 4 KB). */
export const BATCHED_EVENT_MAX_BYTES = 128 * 1024;

type Run =
  | { subject: typeof Subjects.job.queued; jobs: JobQueuedEvent[] }
  | { subject: typeof Subjects.job.changed; jobs: JobChangedEvent[] };

/**
 * Batches the job events of one command that carries many jobs (docs/adr/0013, "Batched job events"): a run
 * of `job.evt.queued` emitted one after another goes to the outbox as one `job.evt.queued-many`, a run of
 * `job.evt.changed` as one `job.evt.changed-many`, each item what its own event would have said, in order. A run
 * of one goes as the single event it was. Any other event, or one of the other job subject, ends the run first, so
 * the outbox keeps every event in the order it was emitted; so does a run that reached BATCHED_EVENT_MAX_JOBS or
 * BATCHED_EVENT_MAX_BYTES. Hand `tx` to what emits, then `flush()` before the handler returns.
 */
export class JobEventBatch {
  /** The command's transaction, its job events batched. */
  readonly tx: Tx;
  private run: Run | null = null;
  private bytes = 0;

  constructor(private readonly inner: Tx) {
    this.tx = { ...inner, emit: (subject, payload, part) => this.emit(subject, payload, part) };
  }

  /** Emits what is held. */
  async flush(): Promise<void> {
    const run = this.run;
    if (!run) return;
    this.run = null;
    this.bytes = 0;
    if (run.subject === Subjects.job.queued) {
      await (run.jobs.length === 1
        ? this.inner.emit(Subjects.job.queued, run.jobs[0])
        : this.inner.emit(Subjects.job.queuedMany, { jobs: run.jobs }));
    } else {
      await (run.jobs.length === 1
        ? this.inner.emit(Subjects.job.changed, run.jobs[0])
        : this.inner.emit(Subjects.job.changedMany, { jobs: run.jobs }));
    }
  }

  private async emit<S extends EventSubject>(
    subject: S,
    payload: EventPayload<S>,
    part?: string | number,
  ): Promise<void> {
    // An event given a part of its own is told apart by it: it goes as it is.
    const batchable =
      part === undefined && (subject === Subjects.job.queued || subject === Subjects.job.changed);
    if (!batchable) {
      await this.flush();
      return this.inner.emit(subject, payload, part);
    }
    // A queued item is an id pair of under 200 bytes, so the job cap bounds its run; a changed item may carry a
    // finished job's view of up to 4 KB, so its size is counted (the outbox serialises it once more on insert).
    const bytes = subject === Subjects.job.changed ? JSON.stringify(payload).length : 0;
    const run = this.run;
    if (
      run &&
      (run.subject !== subject ||
        run.jobs.length >= BATCHED_EVENT_MAX_JOBS ||
        this.bytes + bytes > BATCHED_EVENT_MAX_BYTES)
    ) {
      await this.flush();
    }
    if (this.run) (this.run.jobs as unknown[]).push(payload);
    else this.run = { subject, jobs: [payload] } as Run;
    this.bytes += bytes;
  }
}
