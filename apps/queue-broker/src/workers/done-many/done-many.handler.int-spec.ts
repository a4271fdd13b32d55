import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { ErrorCode, Subjects, type DoneManyItem, type JobChangedEvent } from '@app/contracts';
import type { HandlerHarness, SendOptions } from '../../../../../test/support/handler-harness.js';
import { WorkerCommands } from '../../../../../test/support/queue-broker-workers.js';
import { JobDoneHandler } from '../job-done/job-done.handler.js';
import { DoneManyHandler } from './done-many.handler.js';

/**
 * `worker.cmd.done-many` over queue-broker's real schema: each post applied as its own `worker.cmd.done` would be,
 * in order, in one transaction; the rows it leaves are those the posts sent one by one leave.
 */

const at = (second: number): SendOptions => ({
  issuedAt: new Date(Date.UTC(2026, 2, 1, 12, 0, second)).toISOString(),
});

let commands: WorkerCommands;
let harness: HandlerHarness;

beforeAll(async () => {
  commands = await WorkerCommands.start('done_many');
  const { jobs, workers, results } = commands;
  harness = commands.harness.register(
    new JobDoneHandler(jobs, workers, results),
    new DoneManyHandler(jobs, workers, results),
  );
});

afterAll(async () => {
  await commands?.stop();
});

const post = (jobId: string, extra: Partial<DoneManyItem> = {}): DoneManyItem => ({
  id: randomUUID(),
  jobId,
  hasOutput: true,
  output: { of: jobId },
  progress: false,
  stopPod: false,
  ...extra,
});

/** `count` jobs of a fresh endpoint, leased to its worker; the endpoint, the worker and the job ids. */
const leased = (name: string, count: number, second: number) => commands.leased(name, count, at, second);

interface JobRow {
  id: string;
  status: string;
  output: unknown;
  error: string | null;
  lease_worker_id: string | null;
}

async function jobRows(ids: string[]): Promise<JobRow[]> {
  const rows = await harness.dataSource.query<JobRow[]>(
    `SELECT id, status, output, error, lease_worker_id FROM queue_broker.jobs WHERE id = ANY($1)`,
    [ids],
  );
  return ids.map((id) => rows.find((r) => r.id === id)!);
}

describe('worker.cmd.done-many', () => {
  it("applies each post as its own done would, in order, and answers each post's result", async () => {
    const { worker, ids } = await leased('mixed', 3, 10);
    const before = (await harness.events()).length;
    const dones = [
      post(ids[2], { output: 'progress', progress: true }),
      post(ids[0]),
      post(ids[1], { hasOutput: false, output: undefined, error: 'boom' }),
      post(ids[2], { output: 'final' }),
      // A second result for a job this command already finished: ignored, as a repeated post always is.
      post(ids[0], { output: 'again' }),
      post('no-such-job'),
    ];
    const result = await harness.send(Subjects.worker.doneMany, { ...worker, dones }, at(12));
    expect(result).toEqual({
      dones: [
        { recorded: 'progress' },
        { recorded: 'completed' },
        { recorded: 'failed' },
        { recorded: 'completed' },
        { recorded: 'ignored', reason: 'the job is COMPLETED' },
        { recorded: 'ignored', reason: 'no such job on this endpoint' },
      ],
    });
    const rows = await jobRows(ids);
    expect(rows.map((r) => [r.status, r.output, r.error, r.lease_worker_id])).toEqual([
      ['COMPLETED', { of: ids[0] }, null, null],
      ['FAILED', null, 'boom', null],
      ['COMPLETED', 'final', null, null],
    ]);
    const events = (await harness.events()).slice(before);
    expect(events.map((e) => e.subject)).toEqual([Subjects.job.changedMany]);
    const changed = (events[0].payload as { jobs: JobChangedEvent[] }).jobs;
    expect(changed.map((c) => [c.jobId, c.status])).toEqual([
      [ids[0], 'COMPLETED'],
      [ids[1], 'FAILED'],
      [ids[2], 'COMPLETED'],
    ]);
    // Each ignored post is recorded under the id its own command would have had.
    const ignored = await harness.dataSource.query<{ job_id: string; reason: string }[]>(
      `SELECT job_id, reason FROM queue_broker.ignored_results WHERE worker_id = $1 ORDER BY job_id`,
      [worker.workerId],
    );
    expect(ignored).toEqual([
      { job_id: ids[0], reason: 'the job is COMPLETED' },
      { job_id: 'no-such-job', reason: 'no such job on this endpoint' },
    ]);
  });

  it('announces the finished jobs in one job.evt.changed-many, each item what a batch of one announces', async () => {
    const batched = await leased('events-batched', 3, 50);
    const single = await leased('events-single', 3, 50);
    const posts = (ids: string[]) => [
      post(ids[0]),
      post(ids[1], { output: 'progress', progress: true }),
      post(ids[1], { hasOutput: false, output: undefined, error: 'boom' }),
      post(ids[2]),
    ];
    const before = (await harness.events()).length;
    await harness.send(Subjects.worker.doneMany, { ...batched.worker, dones: posts(batched.ids) }, at(52));
    const events = (await harness.events()).slice(before);
    expect(events.map((e) => e.subject)).toEqual([Subjects.job.changedMany]);
    const items = (events[0].payload as { jobs: JobChangedEvent[] }).jobs;
    expect(items.map((c) => [c.jobId, c.status])).toEqual([
      [batched.ids[0], 'COMPLETED'],
      [batched.ids[1], 'FAILED'],
      [batched.ids[2], 'COMPLETED'],
    ]);
    // Each item is what the same post sent alone announces for its job: the finished view, the timing.
    const middle = (await harness.events()).length;
    for (const alone of posts(single.ids)) {
      await harness.send(Subjects.worker.doneMany, { ...single.worker, dones: [alone] }, at(52));
    }
    const singles = (await harness.events()).slice(middle);
    expect(singles.map((e) => e.subject)).toEqual(Array(3).fill(Subjects.job.changed));
    const renamed = (e: JobChangedEvent) =>
      JSON.parse(JSON.stringify(e).replaceAll('events-single', 'events-batched')) as JobChangedEvent;
    expect(singles.map((e) => renamed(e.payload as JobChangedEvent))).toEqual(items);
    expect(items[0].finished?.view).toMatchObject({ id: batched.ids[0], status: 'COMPLETED' });
  });

  it("locks the worker's row before its jobs, as a take and the sweep's lost workers do (no deadlock between them)", async () => {
    const many = await leased('lock-order-many', 1, 70);
    const one = await leased('lock-order-one', 1, 70);
    const holder = harness.dataSource.createQueryRunner();
    const checker = harness.dataSource.createQueryRunner();
    try {
      // While the worker's row is held elsewhere, the done waits for it: its job is not locked meanwhile.
      const jobLockedWhileWaiting = async (workerId: string, jobId: string, send: () => Promise<unknown>) => {
        await holder.startTransaction();
        await holder.query(`SELECT 1 FROM queue_broker.workers WHERE id = $1 FOR UPDATE`, [workerId]);
        const sent = send();
        await new Promise((r) => setTimeout(r, 300));
        const locked = await checker
          .query(`SELECT 1 FROM queue_broker.jobs WHERE id = $1 FOR UPDATE NOWAIT`, [jobId])
          .then(
            () => false,
            (error: Error) => /could not obtain lock/.test(error.message),
          );
        await holder.commitTransaction();
        return { locked, result: await sent };
      };
      expect(
        await jobLockedWhileWaiting(many.worker.workerId, many.ids[0], () =>
          harness.send(Subjects.worker.doneMany, { ...many.worker, dones: [post(many.ids[0])] }, at(72)),
        ),
      ).toEqual({ locked: false, result: { dones: [{ recorded: 'completed' }] } });
      const { id: _id, ...alone } = post(one.ids[0]);
      expect(
        await jobLockedWhileWaiting(one.worker.workerId, one.ids[0], () =>
          harness.send(Subjects.worker.done, { ...one.worker, ...alone }, at(72)),
        ),
      ).toEqual({ locked: false, result: { recorded: 'completed' } });
    } finally {
      await Promise.all([holder.release(), checker.release()]);
    }
  });

  it('leaves the rows the same posts sent one by one leave', async () => {
    const batched = await leased('batched', 3, 20);
    const single = await leased('single', 3, 20);
    const posts = (ids: string[]) => [
      post(ids[1], { output: { n: 1 } }),
      post(ids[2], { output: 'half way', progress: true }),
      post(ids[0], { hasOutput: false, output: undefined, error: 'boom' }),
      post(ids[2], { output: { n: 2, text: 'say "done"' } }),
    ];
    await harness.send(Subjects.worker.doneMany, { ...batched.worker, dones: posts(batched.ids) }, at(22));
    for (const { id: _id, ...alone } of posts(single.ids)) {
      await harness.send(Subjects.worker.done, { ...single.worker, ...alone }, at(22));
    }
    const shape = (ids: string[]) =>
      harness.dataSource.query<{ status: string }[]>(
        `SELECT j.status, j.output, j.has_output, j.error, j.execution_time_ms, j.delay_time_ms, j.started_at,
                j.finished_at, j.expires_at, j.lease_worker_id, j.leased_at, j.attempts, j.stop_pending,
                j.stream_seq, a.outcome, a.ended_at
           FROM queue_broker.jobs j JOIN queue_broker.job_attempts a ON a.job_id = j.id
          WHERE j.id = ANY($1) ORDER BY j.input->>'n'`,
        [ids],
      );
    const rows = await shape(batched.ids);
    expect(rows).toHaveLength(3);
    expect(rows.map((r) => r.status)).toEqual(['FAILED', 'COMPLETED', 'COMPLETED']);
    expect(rows).toEqual(await shape(single.ids));
    const heard = await harness.dataSource.query<{ id: string; last_seen_at: Date }[]>(
      `SELECT id, last_seen_at FROM queue_broker.workers WHERE id = ANY($1) ORDER BY id`,
      [[batched.worker.workerId, single.worker.workerId]],
    );
    expect(heard.map((w) => w.last_seen_at.toISOString())).toEqual([at(22).issuedAt, at(22).issuedAt]);
  });

  it("writes its jobs' rows in one statement, however many jobs it finishes", async () => {
    const two = await leased('count-2', 2, 60);
    const eight = await leased('count-8', 8, 60);
    const sent = async ({ worker, ids }: { worker: object; ids: string[] }) =>
      (
        await harness.statements(() =>
          harness.send(Subjects.worker.doneMany, { ...worker, dones: ids.map((id) => post(id)) }, at(62)),
        )
      ).statements;
    const forTwo = await sent(two);
    expect(await sent(eight)).toBe(forTwo);
    expect((await jobRows(eight.ids)).map((r) => r.status)).toEqual(Array(8).fill('COMPLETED'));
  });

  it('asks for the pod to be recycled when any post does', async () => {
    const { worker, ids } = await leased('recycle', 2, 30);
    await harness.send(
      Subjects.worker.doneMany,
      { ...worker, dones: [post(ids[0]), post(ids[1], { stopPod: true })] },
      at(32),
    );
    const [row] = await harness.dataSource.query<{ recycle_requested: boolean }[]>(
      `SELECT recycle_requested FROM queue_broker.workers WHERE id = $1`,
      [worker.workerId],
    );
    expect(row.recycle_requested).toBe(true);
  });

  it('refuses the whole command, writing nothing, for repeated post ids or an invalid post', async () => {
    const { worker, ids } = await leased('refused', 1, 40);
    const twice = post(ids[0]);
    expect(
      await harness.refusal(() =>
        harness.send(Subjects.worker.doneMany, { ...worker, dones: [twice, { ...twice }] }, at(41)),
      ),
    ).toMatchObject({ wrote: [], code: ErrorCode.ValidationFailed });
    expect(
      await harness.refusal(() =>
        harness.send(
          Subjects.worker.doneMany,
          { ...worker, dones: [post(ids[0]), { ...post(ids[0]), progress: 'yes' }] },
          at(41),
        ),
      ),
    ).toMatchObject({ wrote: [], code: ErrorCode.ValidationFailed });
    expect(
      await harness.refusal(() => harness.send(Subjects.worker.doneMany, { ...worker, dones: [] }, at(41))),
    ).toMatchObject({ wrote: [], code: ErrorCode.ValidationFailed });
    expect((await jobRows(ids))[0].status).toBe('IN_PROGRESS');
  });
});
