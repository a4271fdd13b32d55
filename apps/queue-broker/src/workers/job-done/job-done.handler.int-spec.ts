import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Subjects, type JobChangedEvent } from '@app/contracts';
import type { HandlerHarness, SendOptions } from '../../../../../test/support/handler-harness.js';
import { WorkerCommands } from '../../../../../test/support/queue-broker-workers.js';
import type { LeasedCopies } from '../../jobs/leased-copies.js';
import { JobDoneHandler } from './job-done.handler.js';

/**
 * `worker.cmd.done` on the copy of its job's row that the lease left in this process (leased-copies.ts), over
 * queue-broker's real schema: what it leaves is what a done that reads its job leaves, and a copy gone stale behind
 * the process's back (another replica's command) never decides anything.
 */

const at = (second: number): SendOptions => ({
  issuedAt: new Date(Date.UTC(2026, 3, 1, 12, 0, second)).toISOString(),
});

let commands: WorkerCommands;
let harness: HandlerHarness;
let copies: LeasedCopies;

beforeAll(async () => {
  commands = await WorkerCommands.start('job_done');
  const { jobs, workers, results } = commands;
  harness = commands.harness.register(new JobDoneHandler(jobs, workers, results));
  copies = commands.copies;
});

afterAll(async () => {
  await commands?.stop();
});

/** `count` jobs of a fresh endpoint (as /runsync submits them) taken by its worker in one take. */
const leased = (name: string, count: number, second: number, webhook?: string) =>
  commands.leased(name, count, at, second, { sync: true, ...(webhook ? { webhook } : {}) });

const done = (worker: { endpointId: string; workerId: string }, jobId: string, second: number) =>
  harness.send(
    Subjects.worker.done,
    { ...worker, jobId, hasOutput: true, output: { echo: 1 }, progress: false, stopPod: false },
    at(second),
  );

/** Everything a done writes about a job, its id and the endpoint's name left out (they differ by test). */
async function leftBehind(jobId: string) {
  const [job] = await harness.dataSource.query<Record<string, unknown>[]>(
    `SELECT * FROM queue_broker.jobs WHERE id = $1`,
    [jobId],
  );
  const attempts = await harness.dataSource.query<Record<string, unknown>[]>(
    `SELECT attempt, worker_id, started_at, ended_at, outcome FROM queue_broker.job_attempts WHERE job_id = $1`,
    [jobId],
  );
  const events = (await harness.events(Subjects.job.changed))
    .map((e) => e.payload as JobChangedEvent)
    .filter((e) => e.jobId === jobId);
  const { id: _id, endpoint_id: _e, last_worker_id: _w, ...columns } = job;
  return {
    columns,
    attempts: attempts.map((a) => ({ ...a, worker_id: '' })),
    events: events.map((e) => ({
      ...e,
      jobId: '',
      endpointId: '',
      finished: { ...e.finished, view: { ...e.finished?.view, id: '', workerId: '' } },
    })),
  };
}

describe('worker.cmd.done on the copy its lease left', () => {
  it('finishes the job from the copy, leaving exactly what a done that reads the job leaves', async () => {
    const copied = await leased('copied', 1, 10);
    const read = await leased('read', 1, 10);
    copies.forget(read.ids);
    const take = jest.spyOn(copies, 'take');
    try {
      expect(await done(copied.worker, copied.ids[0], 12)).toEqual({ recorded: 'completed' });
      expect(await done(read.worker, read.ids[0], 12)).toEqual({ recorded: 'completed' });
      expect(take.mock.results.map((r) => r.value !== undefined)).toEqual([true, false]);
    } finally {
      take.mockRestore();
    }
    const behind = await leftBehind(copied.ids[0]);
    expect(behind.columns).toMatchObject({ status: 'COMPLETED', output: { echo: 1 }, lease_worker_id: null });
    expect(behind).toEqual(await leftBehind(read.ids[0]));
    // The worker was heard from in the version check's statement, as in the read's.
    const seen = await harness.dataSource.query<{ last_seen_at: Date }[]>(
      `SELECT last_seen_at FROM queue_broker.workers WHERE id = ANY($1) ORDER BY id`,
      [[copied.worker.workerId, read.worker.workerId]],
    );
    expect(seen.map((w) => w.last_seen_at.toISOString())).toEqual(Array(2).fill(at(12).issuedAt));
  });

  it("decides nothing on a copy that went stale: another replica's cancel stands, and the post is ignored", async () => {
    const { worker, ids } = await leased('cancelled-elsewhere', 1, 20);
    // What a cancel applied by another replica leaves (this process still holds the lease's copy).
    await harness.dataSource.query(
      `UPDATE queue_broker.jobs SET status = 'CANCELLED', lease_worker_id = NULL, finished_at = $2 WHERE id = $1`,
      [ids[0], new Date(at(21).issuedAt!)],
    );
    expect(await done(worker, ids[0], 22)).toEqual({ recorded: 'ignored', reason: 'the job is CANCELLED' });
    const [row] = await harness.dataSource.query<{ status: string; output: unknown }[]>(
      `SELECT status, output FROM queue_broker.jobs WHERE id = $1`,
      [ids[0]],
    );
    expect(row).toEqual({ status: 'CANCELLED', output: null });
    const ignored = await harness.dataSource.query<{ reason: string }[]>(
      `SELECT reason FROM queue_broker.ignored_results WHERE job_id = $1`,
      [ids[0]],
    );
    expect(ignored).toEqual([{ reason: 'the job is CANCELLED' }]);
  });

  it('applies a done whose copy went stale harmlessly (the row rewritten unchanged) once, from a read', async () => {
    const { worker, ids } = await leased('rewritten', 1, 30);
    await harness.dataSource.query(`UPDATE queue_broker.jobs SET stream_read = stream_read WHERE id = $1`, [
      ids[0],
    ]);
    const before = await harness.events(Subjects.job.changed);
    expect(await done(worker, ids[0], 32)).toEqual({ recorded: 'completed' });
    const changed = (await harness.events(Subjects.job.changed)).slice(before.length);
    expect(changed.map((e) => (e.payload as JobChangedEvent).status)).toEqual(['COMPLETED']);
    const attempts = await harness.dataSource.query<{ outcome: string }[]>(
      `SELECT outcome FROM queue_broker.job_attempts WHERE job_id = $1`,
      [ids[0]],
    );
    expect(attempts).toEqual([{ outcome: 'COMPLETED' }]);
  });

  it('keeps no copy of a job with a webhook (its body carries the input, which a copy leaves out)', async () => {
    const { worker, ids } = await leased('webhook', 1, 40, 'https://hooks.example.com/done');
    const take = jest.spyOn(copies, 'take');
    try {
      expect(await done(worker, ids[0], 42)).toEqual({ recorded: 'completed' });
      expect(take.mock.results.map((r) => r.value)).toEqual([undefined]);
    } finally {
      take.mockRestore();
    }
    const [delivery] = await harness.dataSource.query<{ body: { input: unknown } }[]>(
      `SELECT body FROM queue_broker.webhook_deliveries WHERE job_id = $1`,
      [ids[0]],
    );
    expect(delivery.body.input).toEqual({ n: 0 });
  });

  it('keeps at most 4,096 copies, dropping the oldest (results folded or sent to another replica leave theirs)', async () => {
    const { ids } = await leased('bounded', 1, 50);
    copies.forget(ids);
    const [row] = await harness.dataSource.query<Record<string, unknown>[]>(
      `SELECT *, xmin::text AS row_xmin, ctid::text AS row_ctid FROM queue_broker.jobs WHERE id = $1`,
      [ids[0]],
    );
    for (let n = 0; n <= 4096; n += 1) copies.remember({ ...row, id: `bounded-${n}` });
    expect(copies.take('bounded-0')).toBeUndefined();
    expect(copies.take('bounded-1')?.job).toMatchObject({
      id: 'bounded-1',
      status: 'IN_PROGRESS',
      input: undefined,
    });
    expect(copies.take('bounded-4096')?.version).toEqual({ xmin: row.row_xmin, ctid: row.row_ctid });
    copies.forget(Array.from({ length: 4097 }, (_, n) => `bounded-${n}`));
  });
});
