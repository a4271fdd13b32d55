import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ErrorCode, Subjects, type TakeResult } from '@app/contracts';
import type { HandlerHarness, SendOptions } from '../../../../../test/support/handler-harness.js';
import { startQueueBrokerCommands } from '../../../../../test/support/queue-broker-commands.js';
import type { WorkerCommands } from '../../../../../test/support/queue-broker-workers.js';

/**
 * `job.cmd.submit` with a piggy-backed take (a worker's long poll waiting at the edge), over queue-broker's real
 * schema: the take leases in the submit's own transaction as the worker's own take would, and a replay with its
 * recorded decision leases exactly what it leased live.
 */

const ENDPOINT = 'ep-handlers';

let commands: WorkerCommands;
let harness: HandlerHarness;

beforeAll(async () => {
  commands = await startQueueBrokerCommands('submit_take');
  harness = commands.harness;
});

afterAll(async () => {
  await commands?.stop();
});

describe('a piggy-backed take (a worker poll waiting at the edge)', () => {
  const PIGGY = 'ep-piggy';
  const poller = { endpointId: PIGGY, workerId: 'worker-piggy' };
  const at17 = (minute: number, second = 0): SendOptions => ({
    issuedAt: new Date(Date.UTC(2026, 2, 1, 17, minute, second)).toISOString(),
  });
  const submitTaking = (input: unknown, when: SendOptions, take: object = { ...poller, batchSize: 1 }) =>
    harness.send(Subjects.job.submit, { endpointId: PIGGY, sync: true, input, take }, when);

  it('leases the job it submits in its own transaction, and queues no signal for it', async () => {
    await harness.send(Subjects.worker.register, poller, at17(0));
    const queuedBefore = (await harness.events(Subjects.job.queued)).length;
    const { result, wrote } = await harness.wrote(() => submitTaking({ n: 1 }, at17(1)));
    expect(result).toMatchObject({
      status: 'IN_QUEUE',
      taken: { jobs: [{ id: result.id, input: { n: 1 } }] },
    });
    expect(wrote).toEqual(expect.arrayContaining(['jobs', 'job_attempts', 'workers']));
    expect((await harness.events(Subjects.job.queued)).length).toBe(queuedBefore);
    // It runs: the worker finishes it as any leased job.
    const done = await harness.send(
      Subjects.worker.done,
      { ...poller, jobId: result.id, output: 2, hasOutput: true, progress: false, stopPod: false },
      at17(2),
    );
    expect(done).toEqual({ recorded: 'completed' });
  });

  it('leases the oldest queued jobs first; the new job, left queued, is signalled as any submit', async () => {
    const older = await harness.send(
      Subjects.job.submit,
      { endpointId: PIGGY, sync: false, input: 'old' },
      at17(3),
    );
    const result = await submitTaking('new', at17(4));
    expect(result.taken).toEqual({ jobs: [expect.objectContaining({ id: older.id })] });
    const queued = (await harness.events(Subjects.job.queued)).at(-1)?.payload;
    expect(queued).toEqual({ endpointId: PIGGY, jobId: result.id });
    const next = await harness.send(Subjects.worker.take, { ...poller, batchSize: 5 }, at17(5));
    expect((next as TakeResult).jobs.map((job) => job.id)).toEqual([result.id]);
  });

  it('replayed with its recorded decision, leases exactly what it leased live', async () => {
    const older = await harness.send(
      Subjects.job.submit,
      { endpointId: PIGGY, sync: false, input: 'a' },
      at17(10),
    );
    // Live, another worker's take had locked the older job: this submit's take leased only its own.
    const result = await harness.send(
      Subjects.job.submit,
      { endpointId: PIGGY, sync: false, input: 'b', take: { ...poller, batchSize: 2 } },
      { ...at17(11), decided: { jobIds: [] } },
    );
    expect(result.taken).toEqual({ jobs: [] });
    const rest = await harness.send(Subjects.worker.take, { ...poller, batchSize: 5 }, at17(12));
    expect((rest as TakeResult).jobs.map((job) => job.id)).toEqual([older.id, result.id]);
  });

  it('leases nothing to a worker that is not alive; refuses a take for another endpoint (422), writing nothing', async () => {
    // A poll the worker made longer than WORKER_LOST_AFTER_MS ago, and no heartbeat since.
    const lost = await submitTaking('x', at17(50, 1), {
      endpointId: PIGGY,
      workerId: 'worker-silent',
      batchSize: 1,
      requestedAt: at17(20).issuedAt,
    });
    expect(lost.taken).toEqual({ jobs: [] });
    expect((await harness.events(Subjects.job.queued)).at(-1)?.payload).toEqual({
      endpointId: PIGGY,
      jobId: lost.id,
    });
    expect(
      await harness.refusal(() =>
        submitTaking('y', at17(51), { ...poller, endpointId: ENDPOINT, batchSize: 1 }),
      ),
    ).toMatchObject({ code: ErrorCode.ValidationFailed, wrote: [] });
    expect(
      await harness.refusal(() => submitTaking('y', at17(51), { ...poller, batchSize: 0 })),
    ).toMatchObject({ code: ErrorCode.ValidationFailed, wrote: [] });
    await harness.send(Subjects.job.purge, { endpointId: PIGGY }, at17(52));
  });
});
