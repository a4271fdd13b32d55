import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Subjects, type SubmitResult, type TakeResult } from '@app/contracts';
import type { SendOptions } from '../../../../../test/support/handler-harness.js';
import { WorkerCommands } from '../../../../../test/support/queue-broker-workers.js';
import { QueueBrokerConfig } from '../../queue-broker.config.js';
import { JobChunksRepository } from '../job-chunks.repository.js';
import { JobLifecycle } from '../job-lifecycle.js';
import { SubmitJobHandler } from './submit-job.handler.js';

/**
 * `job.cmd.submit` carrying the take of a worker poll, alone in its transaction: the take is guessed to lease the
 * job submitted and the command answers without waiting for the lease (docs/adr/0013, "A take that rides on the
 * submit, guessed"), over queue-broker's real schema. What it leaves is what a submit whose take reads leaves, and a
 * wrong guess never decides anything: the submit is applied again, reading.
 */

const at = (second: number): SendOptions => ({
  issuedAt: new Date(Date.UTC(2026, 4, 1, 12, 0, second)).toISOString(),
});

let commands: WorkerCommands;

beforeAll(async () => {
  commands = await WorkerCommands.start('submit_take');
  const { jobs, takes, payloads } = commands;
  const lifecycle = new JobLifecycle(jobs, new JobChunksRepository());
  commands.harness.register(new SubmitJobHandler(jobs, lifecycle, takes, payloads, new QueueBrokerConfig()));
});

afterAll(async () => {
  await commands?.stop();
});

/** A fresh endpoint with its worker registered at `second`. */
async function endpoint(name: string, second: number) {
  const worker = { endpointId: `ep-${name}`, workerId: `worker-${name}` };
  await commands.harness.send(Subjects.worker.register, worker, at(second));
  return worker;
}

const submitTaking = (
  worker: { endpointId: string; workerId: string },
  input: unknown,
  when: SendOptions,
): Promise<SubmitResult> =>
  commands.harness.send(
    Subjects.job.submit,
    { endpointId: worker.endpointId, sync: true, input, take: { ...worker, batchSize: 4 } },
    when,
  );

/** Which of the two ways the take went, in order: guessed, or read (JobTakes.take). */
async function ways<T>(work: () => Promise<T>): Promise<{ result: T; ways: string[] }> {
  const guessed = jest.spyOn(commands.takes, 'takeSubmitted');
  const read = jest.spyOn(commands.takes, 'take');
  try {
    const result = await work();
    const calls = [
      ...guessed.mock.invocationCallOrder.map((order) => ({ order, way: 'guessed' })),
      ...read.mock.invocationCallOrder.map((order) => ({ order, way: 'read' })),
    ].sort((x, y) => x.order - y.order);
    return { result, ways: calls.map((c) => c.way) };
  } finally {
    guessed.mockRestore();
    read.mockRestore();
  }
}

/** Everything a submit and its take write about a job, its id and endpoint left out (they differ by test). */
async function leftBehind(jobId: string) {
  const { dataSource } = commands.harness;
  const [job] = await dataSource.query<Record<string, unknown>[]>(
    `SELECT * FROM queue_broker.jobs WHERE id = $1`,
    [jobId],
  );
  const attempts = await dataSource.query<Record<string, unknown>[]>(
    `SELECT attempt, started_at, ended_at, outcome FROM queue_broker.job_attempts WHERE job_id = $1`,
    [jobId],
  );
  const events = (await commands.harness.events())
    .filter((e) => JSON.stringify(e.payload).includes(jobId))
    .map((e) => e.subject);
  const { id: _id, endpoint_id: _e, lease_worker_id: leased, last_worker_id: last, ...columns } = job;
  return { columns, attempts, events, leasedToItsWorker: leased === last && leased !== null };
}

/** The worker's row as the take's touch left it. */
async function workerRow(workerId: string) {
  const [row] = await commands.harness.dataSource.query<Record<string, unknown>[]>(
    `SELECT registered_at, last_seen_at, first_poll_at, lost_at FROM queue_broker.workers WHERE id = $1`,
    [workerId],
  );
  return row;
}

const withoutId = (taken: TakeResult) => taken.jobs.map(({ id: _id, ...job }) => job);

describe('a submit whose take rides on it, guessed', () => {
  it('leases the job it submits without reading, leaving exactly what a submit whose take reads leaves', async () => {
    const guessing = await endpoint('guessed', 0);
    const reading = await endpoint('read', 0);
    const input = { zeta: 1, alpha: { y: [1, 'two'], b: null } };
    const guessed = await ways(() => submitTaking(guessing, input, at(1)));
    const read = await ways(() => submitTaking(reading, input, { ...at(1), mayGuess: false }));
    expect(guessed.ways).toEqual(['guessed']);
    expect(read.ways).toEqual(['read']);
    const [g, r] = [guessed.result, read.result];
    expect(g.taken).toEqual({ jobs: [expect.objectContaining({ id: g.id, input })] });
    expect(withoutId(g.taken as TakeResult)).toEqual(withoutId(r.taken as TakeResult));
    expect({ ...g, id: '', taken: undefined }).toEqual({ ...r, id: '', taken: undefined });
    const behind = await leftBehind(g.id);
    expect(behind).toMatchObject({
      columns: { status: 'IN_PROGRESS', attempts: 1 },
      leasedToItsWorker: true,
    });
    expect(behind).toEqual(await leftBehind(r.id));
    expect(await workerRow(guessing.workerId)).toEqual(await workerRow(reading.workerId));
    // Its lease's copy was kept when the statement answered, as the row is now: its done is one round trip too
    // (leased-copies.ts).
    const [row] = await commands.harness.dataSource.query<{ xmin: string; ctid: string }[]>(
      `SELECT xmin::text, ctid::text FROM queue_broker.jobs WHERE id = $1`,
      [g.id],
    );
    expect(commands.copies.take(g.id)).toMatchObject({
      job: { id: g.id, status: 'IN_PROGRESS', leaseWorkerId: guessing.workerId },
      version: row,
    });
  });

  it('is wrong when another job of the endpoint is queued: applied again, reading, it leases that older job', async () => {
    const worker = await endpoint('older', 10);
    const older = await commands.harness.send(
      Subjects.job.submit,
      { endpointId: worker.endpointId, sync: false, input: 'older' },
      at(11),
    );
    const { result, ways: taken } = await ways(() => submitTaking(worker, 'newer', at(12)));
    expect(taken).toEqual(['guessed', 'read']);
    expect(result.taken).toEqual({
      jobs: [expect.objectContaining({ id: older.id }), expect.objectContaining({ id: result.id })],
    });
    // Nothing of the wrong guess stayed: one attempt each, opened by the read's take.
    const attempts = await commands.harness.dataSource.query<{ job_id: string; attempt: number }[]>(
      `SELECT job_id, attempt FROM queue_broker.job_attempts WHERE job_id = ANY($1) ORDER BY job_id`,
      [[older.id, result.id]],
    );
    expect(attempts).toHaveLength(2);
    expect(attempts.every((a) => a.attempt === 1)).toBe(true);
  });

  it('is wrong when a queued job is held by another transaction: reading skips that one, as a take does', async () => {
    const worker = await endpoint('held', 20);
    const held = await commands.harness.send(
      Subjects.job.submit,
      { endpointId: worker.endpointId, sync: false, input: 'held' },
      at(21),
    );
    const holder = commands.harness.dataSource.createQueryRunner();
    await holder.connect();
    await holder.startTransaction();
    try {
      await holder.query('SELECT id FROM queue_broker.jobs WHERE id = $1 FOR UPDATE', [held.id]);
      const { result, ways: taken } = await ways(() => submitTaking(worker, 'free', at(22)));
      expect(taken).toEqual(['guessed', 'read']);
      expect(result.taken).toEqual({ jobs: [expect.objectContaining({ id: result.id, input: 'free' })] });
    } finally {
      await holder.rollbackTransaction();
      await holder.release();
    }
  });

  it('is wrong when the worker is lost: applied again, reading, it leases nothing and the job is queued', async () => {
    const worker = await endpoint('lost', 30);
    const queuedBefore = (await commands.harness.events(Subjects.job.queued)).length;
    // A poll made longer than WORKER_LOST_AFTER_MS before the submit, and nothing heard from the worker since.
    const { result, ways: taken } = await ways(() =>
      commands.harness.send(
        Subjects.job.submit,
        {
          endpointId: worker.endpointId,
          sync: true,
          input: 1,
          take: { ...worker, batchSize: 1, requestedAt: at(31).issuedAt },
        },
        { issuedAt: new Date(Date.UTC(2026, 4, 1, 13)).toISOString() },
      ),
    );
    expect(taken).toEqual(['guessed', 'read']);
    expect(result).toEqual({ id: result.id, status: 'IN_QUEUE', taken: { jobs: [] } });
    const queued = (await commands.harness.events(Subjects.job.queued)).slice(queuedBefore);
    expect(queued.map((e) => e.payload)).toEqual([{ endpointId: worker.endpointId, jobId: result.id }]);
    expect((await leftBehind(result.id)).columns).toMatchObject({ status: 'IN_QUEUE', attempts: 0 });
  });
});
