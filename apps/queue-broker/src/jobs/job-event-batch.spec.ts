import { describe, expect, it } from '@jest/globals';
import { Subjects, type JobChangedEvent, type JobQueuedEvent } from '@app/contracts';
import { BATCHED_EVENT_MAX_BYTES, BATCHED_EVENT_MAX_JOBS, JobEventBatch } from './job-event-batch.js';
import type { Tx } from './job-lifecycle.js';

/** A transaction whose emits are written down, in order, with the part each was given. */
function recording() {
  const emitted: [string, unknown, (string | number)?][] = [];
  const tx = {
    envelope: {},
    manager: {},
    now: new Date(0),
    emit: (subject: string, payload: unknown, part?: string | number) => {
      emitted.push(part === undefined ? [subject, payload] : [subject, payload, part]);
      return Promise.resolve();
    },
  } as unknown as Tx;
  return { tx, emitted };
}

const queued = (n: number): JobQueuedEvent => ({ endpointId: 'ep', jobId: `job-${n}` });
const changed = (n: number, extra: Partial<JobChangedEvent> = {}): JobChangedEvent => ({
  endpointId: 'ep',
  jobId: `job-${n}`,
  status: 'COMPLETED',
  ...extra,
});

describe('JobEventBatch', () => {
  it('emits a run of queued events as one queued-many and a run of changed as one changed-many, in order', async () => {
    const { tx, emitted } = recording();
    const batch = new JobEventBatch(tx);
    for (const n of [1, 2, 3]) await batch.tx.emit(Subjects.job.queued, queued(n));
    // Nothing reaches the outbox before the run ends.
    expect(emitted).toEqual([]);
    await batch.tx.emit(Subjects.job.changed, changed(4));
    await batch.tx.emit(Subjects.job.changed, changed(5, { status: 'FAILED' }));
    await batch.flush();
    expect(emitted).toEqual([
      [Subjects.job.queuedMany, { jobs: [queued(1), queued(2), queued(3)] }],
      [Subjects.job.changedMany, { jobs: [changed(4), changed(5, { status: 'FAILED' })] }],
    ]);
    // A second flush has nothing left to emit.
    await batch.flush();
    expect(emitted).toHaveLength(2);
  });

  it('emits a run of one as the single event it was', async () => {
    const { tx, emitted } = recording();
    const batch = new JobEventBatch(tx);
    await batch.tx.emit(Subjects.job.changed, changed(1));
    await batch.flush();
    await batch.tx.emit(Subjects.job.queued, queued(2));
    await batch.flush();
    expect(emitted).toEqual([
      [Subjects.job.changed, changed(1)],
      [Subjects.job.queued, queued(2)],
    ]);
  });

  it('keeps the order of every event: another subject, or an event with a part of its own, ends the run first', async () => {
    const { tx, emitted } = recording();
    const batch = new JobEventBatch(tx);
    const stop = { endpointId: 'ep', workerId: 'w1', jobId: 'job-2' };
    await batch.tx.emit(Subjects.job.changed, changed(1));
    await batch.tx.emit(Subjects.job.changed, changed(2));
    await batch.tx.emit(Subjects.worker.stopRequested, stop);
    await batch.tx.emit(Subjects.job.changed, changed(3));
    await batch.tx.emit(Subjects.job.changed, changed(4), 'own');
    await batch.tx.emit(Subjects.job.queued, queued(5));
    await batch.flush();
    expect(emitted).toEqual([
      [Subjects.job.changedMany, { jobs: [changed(1), changed(2)] }],
      [Subjects.worker.stopRequested, stop],
      [Subjects.job.changed, changed(3)],
      [Subjects.job.changed, changed(4), 'own'],
      [Subjects.job.queued, queued(5)],
    ]);
  });

  it('starts a new event past BATCHED_EVENT_MAX_JOBS jobs or BATCHED_EVENT_MAX_BYTES bytes', async () => {
    const byCount = recording();
    const counted = new JobEventBatch(byCount.tx);
    const total = BATCHED_EVENT_MAX_JOBS * 2 + 1;
    for (let n = 0; n < total; n++) await counted.tx.emit(Subjects.job.queued, queued(n));
    await counted.flush();
    expect(
      byCount.emitted.map(([subject, payload]) => [subject, (payload as { jobs?: unknown[] }).jobs?.length]),
    ).toEqual([
      [Subjects.job.queuedMany, BATCHED_EVENT_MAX_JOBS],
      [Subjects.job.queuedMany, BATCHED_EVENT_MAX_JOBS],
      [Subjects.job.queued, undefined],
    ]);
    const ids = byCount.emitted.flatMap(([, payload]) =>
      ((payload as { jobs?: JobQueuedEvent[] }).jobs ?? [payload as JobQueuedEvent]).map((e) => e.jobId),
    );
    expect(ids).toEqual(Array.from({ length: total }, (_, n) => `job-${n}`));

    const bySize = recording();
    const sized = new JobEventBatch(bySize.tx);
    // Finished views of about 4 KB each, as large as a changed event carries one.
    const big = (n: number) =>
      changed(n, {
        finished: { view: { id: `job-${n}`, output: 'x'.repeat(4000) } as never, expiresAt: '' },
      });
    const perEvent = Math.floor(BATCHED_EVENT_MAX_BYTES / JSON.stringify(big(1000)).length);
    for (let n = 1000; n < 1000 + perEvent + 1; n++) await sized.tx.emit(Subjects.job.changed, big(n));
    await sized.flush();
    const sizes = bySize.emitted.map(([, payload]) => JSON.stringify(payload).length);
    expect(bySize.emitted.map(([subject]) => subject)).toEqual([
      Subjects.job.changedMany,
      Subjects.job.changed,
    ]);
    expect(sizes[0]).toBeLessThanOrEqual(BATCHED_EVENT_MAX_BYTES + 100);
  });
});
