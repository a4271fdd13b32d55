import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ErrorCode, Subjects, isBlobRef, type JobRead } from '@app/contracts';
import { refusalOf, type HandlerHarness } from '../../../../../test/support/handler-harness.js';
import { JobCommands, ago } from '../../../../../test/support/queue-broker-jobs.js';
import type { PayloadStore } from '../../payloads/payload-store.js';
import { GetJobHandler } from './get-job.handler.js';

/**
 * `job.qry.get` (GET /status) over queue-broker's real schema and the run's NATS (the payload store): jobs made and
 * moved by its submit, take and done commands, dated back from the test's clock (the handler reads the clock).
 */

let commands: JobCommands;
let harness: HandlerHarness;
let payloads: PayloadStore;

beforeAll(async () => {
  commands = await JobCommands.start('get_job');
  harness = commands.harness;
  payloads = commands.workerCommands.payloads;
  harness.register(new GetJobHandler(commands.workerCommands.jobs, payloads));
});

afterAll(async () => {
  await commands?.stop();
});

const ask = (endpointId: string, jobId: string) => harness.query(Subjects.job.get, { endpointId, jobId });
/** The answer as the edge reads it: unpacked if it came as a blob. */
const read = async (endpointId: string, jobId: string): Promise<JobRead> =>
  payloads.unpack(await ask(endpointId, jobId));

describe('getting a job', () => {
  it('answers a queued job, visible until its ttl ends', async () => {
    const now = Date.now();
    const job = await commands.submit('ep-queued', { n: 1 }, ago(now, 60), { policy: { ttl: 3_600_000 } });
    expect(await read('ep-queued', job.id)).toEqual({
      view: { id: job.id, status: 'IN_QUEUE' },
      expiresAt: new Date(now - 60_000 + 3_600_000).toISOString(),
    });
  });

  it('follows the job through its take and done: worker, delay and execution times, output, retention', async () => {
    const now = Date.now();
    const job = await commands.submit('ep-life', { n: 2 }, ago(now, 120));
    await commands.take('ep-life', 'worker-life', ago(now, 110));
    const running = await read('ep-life', job.id);
    expect(running.view).toMatchObject({
      id: job.id,
      status: 'IN_PROGRESS',
      delayTime: 10_000,
      workerId: 'worker-life',
    });
    // Running: from the start to the read.
    expect(running.view.executionTime).toBeGreaterThanOrEqual(110_000);
    await commands.done('ep-life', 'worker-life', job.id, { output: { answer: 42 } }, ago(now, 100));
    expect(await read('ep-life', job.id)).toEqual({
      view: {
        id: job.id,
        status: 'COMPLETED',
        output: { answer: 42 },
        delayTime: 10_000,
        executionTime: 10_000,
        workerId: 'worker-life',
      },
      // A /run job's result is kept 30 minutes after it finished.
      expiresAt: new Date(now - 100_000 + 30 * 60_000).toISOString(),
    });
  });

  it("answers a failed job with its handler's error", async () => {
    const now = Date.now();
    const job = await commands.submit('ep-failed', { n: 3 }, ago(now, 30));
    await commands.take('ep-failed', 'worker-failed', ago(now, 29));
    await commands.done('ep-failed', 'worker-failed', job.id, { error: 'out of memory' }, ago(now, 28));
    expect((await read('ep-failed', job.id)).view).toMatchObject({
      id: job.id,
      status: 'FAILED',
      error: 'out of memory',
    });
  });

  it("refuses an unknown job, another endpoint's job and an expired one alike (404)", async () => {
    const now = Date.now();
    const job = await commands.submit('ep-mine', { n: 4 }, ago(now, 5));
    const expired = await commands.submit('ep-mine', { n: 5 }, ago(now, 60), { policy: { ttl: 10_000 } });
    const notFound = {
      code: ErrorCode.NotFound,
      message: expect.stringContaining('does not exist on this endpoint'),
    };
    expect(await refusalOf(ask('ep-mine', 'job-missing'))).toMatchObject(notFound);
    expect(await refusalOf(ask('ep-other', job.id))).toMatchObject(notFound);
    expect(await refusalOf(ask('ep-mine', expired.id))).toMatchObject(notFound);
    await expect(read('ep-mine', job.id)).resolves.toMatchObject({ view: { status: 'IN_QUEUE' } });
  });

  it('sends a status too large for one NATS message as a blob, which unpacks to the view', async () => {
    const now = Date.now();
    const output = 'x'.repeat(2 * 1024 * 1024);
    const job = await commands.submit('ep-large', { n: 6 }, ago(now, 30));
    await commands.take('ep-large', 'worker-large', ago(now, 29));
    await commands.done('ep-large', 'worker-large', job.id, { output }, ago(now, 28));
    const packed = await ask('ep-large', job.id);
    expect(isBlobRef(packed)).toBe(true);
    expect((await payloads.unpack(packed)).view).toMatchObject({ id: job.id, status: 'COMPLETED', output });
  });
});
