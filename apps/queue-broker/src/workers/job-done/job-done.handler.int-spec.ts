import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Subjects, type JobChangedEvent } from '@app/contracts';
import type { HandlerHarness, SendOptions } from '../../../../../test/support/handler-harness.js';
import { WorkerCommands } from '../../../../../test/support/queue-broker-workers.js';
import { JobDoneHandler } from './job-done.handler.js';

/**
 * `worker.cmd.done` over queue-broker's real schema: what a final result leaves on the job, its attempt, its event
 * and the worker's heartbeat, and that a job another replica ended meanwhile keeps its end.
 */

const at = (second: number): SendOptions => ({
  issuedAt: new Date(Date.UTC(2026, 3, 1, 12, 0, second)).toISOString(),
});

let commands: WorkerCommands;
let harness: HandlerHarness;

beforeAll(async () => {
  commands = await WorkerCommands.start('job_done');
  const { jobs, workers, results } = commands;
  harness = commands.harness.register(new JobDoneHandler(jobs, workers, results));
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

describe('worker.cmd.done', () => {
  it('finishes the job: its output, its closed attempt, its event and the worker heartbeat', async () => {
    const { worker, ids } = await leased('finished', 1, 10);
    expect(await done(worker, ids[0], 12)).toEqual({ recorded: 'completed' });
    const behind = await leftBehind(ids[0]);
    expect(behind.columns).toMatchObject({ status: 'COMPLETED', output: { echo: 1 }, lease_worker_id: null });
    expect(behind.attempts).toEqual([
      {
        attempt: 1,
        worker_id: '',
        started_at: new Date(at(11).issuedAt!),
        ended_at: new Date(at(12).issuedAt!),
        outcome: 'COMPLETED',
      },
    ]);
    expect(behind.events.map((e) => e.status)).toEqual(['COMPLETED']);
    // The worker's heartbeat went in the job's locking statement.
    const seen = await harness.dataSource.query<{ last_seen_at: Date }[]>(
      `SELECT last_seen_at FROM queue_broker.workers WHERE id = $1`,
      [worker.workerId],
    );
    expect(seen.map((w) => w.last_seen_at.toISOString())).toEqual([at(12).issuedAt]);
  });

  it("lets another replica's cancel stand: the post is ignored, with its reason", async () => {
    const { worker, ids } = await leased('cancelled-elsewhere', 1, 20);
    // What a cancel applied by another replica leaves.
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

  it("queues the webhook delivery, its body carrying the job's input", async () => {
    const { worker, ids } = await leased('webhook', 1, 40, 'https://hooks.example.com/done');
    expect(await done(worker, ids[0], 42)).toEqual({ recorded: 'completed' });
    const [delivery] = await harness.dataSource.query<{ body: { input: unknown } }[]>(
      `SELECT body FROM queue_broker.webhook_deliveries WHERE job_id = $1`,
      [ids[0]],
    );
    expect(delivery.body.input).toEqual({ n: 0 });
  });
});
