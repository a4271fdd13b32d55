import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ErrorCode, Subjects, type JobDetailView, type JobListView, type TakeResult } from '@app/contracts';
import type { SendOptions } from '../../../../../test/support/handler-harness.js';
import { startQueueBrokerCommands } from '../../../../../test/support/queue-broker-commands.js';
import type { WorkerCommands } from '../../../../../test/support/queue-broker-workers.js';

/**
 * The job history queries over queue-broker's real schema and the run's NATS: a page of the endpoint's jobs newest
 * first with previews and sizes, filters and cursor, one job whole; then the sweep that expires the results moves
 * what stays of them to the history (listed without payloads) and the history's retention deletes it.
 */

const ENDPOINT = 'ep-history';
const WORKER = 'worker-history';
const worker = { endpointId: ENDPOINT, workerId: WORKER };
const DAY_MS = 24 * 3600_000;
/** The jobs' times, a minute before the real now: their results (kept 30 min) are still kept when listed. */
const BASE = Date.now() - 60_000;
const at = (ms: number): SendOptions => ({ issuedAt: new Date(BASE + ms).toISOString() });

let commands: WorkerCommands;

beforeAll(async () => {
  commands = await startQueueBrokerCommands('jobhist');
});

afterAll(async () => {
  await commands?.stop();
});

const list = (query: Record<string, unknown>) =>
  commands.harness.query(Subjects.job.list, { endpointId: ENDPOINT, limit: 20, ...query });

async function detail(jobId: string): Promise<JobDetailView> {
  const packed = await commands.harness.query(Subjects.job.detail, { endpointId: ENDPOINT, jobId });
  return commands.payloads.unpack(packed);
}

const ids = (page: JobListView) => page.jobs.map((job) => job.id);

describe("an endpoint's job history", () => {
  const long = 'x'.repeat(500);
  let completed: string;
  let failed: string;
  let queued: string;

  beforeAll(async () => {
    const { harness } = commands;
    await harness.send(Subjects.worker.register, worker, at(0));
    const submit = (input: unknown, ms: number) =>
      harness.send(Subjects.job.submit, { endpointId: ENDPOINT, sync: false, input }, at(ms));
    completed = (await submit({ prompt: long }, 1000)).id;
    const taken = (await harness.send(
      Subjects.worker.take,
      { ...worker, batchSize: 1 },
      at(1500),
    )) as TakeResult;
    expect(taken.jobs.map((j) => j.id)).toEqual([completed]);
    await harness.send(
      Subjects.worker.done,
      {
        ...worker,
        jobId: completed,
        output: { answer: 42 },
        hasOutput: true,
        progress: false,
        stopPod: false,
      },
      at(4000),
    );
    failed = (await submit({ n: 2 }, 5000)).id;
    await harness.send(Subjects.worker.take, { ...worker, batchSize: 1 }, at(5200));
    await harness.send(
      Subjects.worker.done,
      { ...worker, jobId: failed, error: 'boom', hasOutput: false, progress: false, stopPod: false },
      at(5700),
    );
    queued = (await submit({ n: 3 }, 6000)).id;
  });

  it('lists the jobs newest first, with timings, the worker, and previews cut at 200 characters with sizes', async () => {
    const page = await list({});
    expect(ids(page)).toEqual([queued, failed, completed]);
    expect(page.next).toBeNull();
    const [q, f, c] = page.jobs;
    expect(q).toMatchObject({ status: 'IN_QUEUE', startedAt: null, completedAt: null, workerId: null });
    expect(q.input).toEqual({ preview: '{"n": 3}', bytes: 8, truncated: false });
    expect(f).toMatchObject({ status: 'FAILED', workerId: WORKER, delayTime: 200, executionTime: 500 });
    expect(f.error).toEqual({ preview: 'boom', bytes: 4, truncated: false });
    expect(f.output).toBeNull();
    expect(c).toMatchObject({
      status: 'COMPLETED',
      createdAt: new Date(BASE + 1000).toISOString(),
      startedAt: new Date(BASE + 1500).toISOString(),
      completedAt: new Date(BASE + 4000).toISOString(),
      delayTime: 500,
      executionTime: 2500,
      attempts: 1,
      retries: 0,
      resultExpired: false,
      outputBytes: 14,
    });
    expect(c.input).toMatchObject({ truncated: true, bytes: 514 });
    expect(c.input?.preview).toHaveLength(200);
    expect(c.output).toEqual({ preview: '{"answer": 42}', bytes: 14, truncated: false });
  });

  it('filters by status and time, and pages with the cursor of the page before', async () => {
    expect(ids(await list({ statuses: ['FAILED', 'COMPLETED'] }))).toEqual([failed, completed]);
    expect(ids(await list({ from: new Date(BASE + 5000).toISOString() }))).toEqual([queued, failed]);
    expect(ids(await list({ to: new Date(BASE + 5000).toISOString() }))).toEqual([completed]);
    const first = await list({ limit: 2 });
    expect(ids(first)).toEqual([queued, failed]);
    expect(first.next).toEqual({ createdAt: new Date(BASE + 5000).toISOString(), id: failed });
    const second = await list({ limit: 2, after: first.next });
    expect(ids(second)).toEqual([completed]);
    expect(second.next).toBeNull();
    expect(await commands.harness.refusal(() => list({ statuses: ['DONE'] }))).toMatchObject({
      code: ErrorCode.ValidationFailed,
    });
  });

  it('gives one job whole: input, output, phases and its leases; another endpoint asking finds nothing', async () => {
    const job = await detail(completed);
    expect(job).toMatchObject({
      id: completed,
      endpointId: ENDPOINT,
      input: { prompt: long },
      output: { answer: 42 },
      phases: { queued: 500, running: 2500, total: 3000 },
      leases: [
        {
          attempt: 1,
          workerId: WORKER,
          startedAt: new Date(BASE + 1500).toISOString(),
          endedAt: new Date(BASE + 4000).toISOString(),
          outcome: 'COMPLETED',
        },
      ],
      streamChunks: 0,
    });
    expect((await detail(failed)).error).toBe('boom');
    expect(
      await commands.harness.refusal(() =>
        commands.harness.query(Subjects.job.detail, { endpointId: 'ep-other', jobId: completed }),
      ),
    ).toMatchObject({ code: ErrorCode.NotFound });
  });

  it('keeps what stays of a job once its result expired, without payloads, until the history retention', async () => {
    const { harness, jobs } = commands;
    // The results of /run jobs are kept 30 minutes: a sweep after that deletes them from the jobs (/status: 404).
    await harness.send(Subjects.job.sweep, { detectLostWorkers: false }, at(45 * 60_000));
    expect(await jobs.statusOf([completed, failed])).toEqual([]);
    const page = await list({});
    expect(ids(page)).toEqual([queued, failed, completed]);
    const c = page.jobs[2];
    expect(c).toMatchObject({
      status: 'COMPLETED',
      resultExpired: true,
      inputBytes: 514,
      outputBytes: 14,
      input: null,
      output: null,
      workerId: WORKER,
      executionTime: 2500,
    });
    const job = await detail(completed);
    expect(job).not.toHaveProperty('input');
    expect(job).not.toHaveProperty('output');
    expect(job.leases).toHaveLength(1);
    expect(job.phases).toEqual({ queued: 500, running: 2500, total: 3000 });
    // Seven days after they finished (JOB_HISTORY_RETENTION_MS), the history forgets them.
    await harness.send(Subjects.job.sweep, { detectLostWorkers: false }, at(8 * DAY_MS));
    expect(ids(await list({}))).not.toContain(completed);
  });
});
