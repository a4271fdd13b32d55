import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import runpodSdk from 'runpod-sdk';
import { startJobsSystem, type JobsSystem } from './jobs.e2e-helpers.js';
import { startWorkerProcess, type WorkerProcess } from './worker-process.e2e-helpers.js';

type Json = Record<string, unknown>;

/** The stock JS client `runpod-sdk` from npm, unmodified, with its baseUrl pointed at the gateway. */
describe('runpod-sdk (npm) against the gateway', () => {
  let jobs: JobsSystem;
  const workers: WorkerProcess[] = [];
  const endpoint = (name: string) => {
    const client = runpodSdk(jobs.user.key, { baseUrl: `${jobs.gateway}/v2` }).endpoint(jobs.endpoints[name]);
    if (!client) throw new Error('no endpoint client');
    return client;
  };

  beforeAll(async () => {
    // The SDK logs every status it polls.
    jest.spyOn(console, 'log').mockImplementation(() => undefined);
    jobs = await startJobsSystem('sdk', {
      endpoints: ['slow', 'stream', 'idle'],
      gateway: { JOB_TAKE_LONG_POLL_MS: '5000' },
    });
    workers.push(
      startWorkerProcess(jobs, 'echo', 'sdk-echo'),
      startWorkerProcess(jobs, 'sleep', 'sdk-slow', { endpointId: jobs.endpoints.slow }),
      startWorkerProcess(jobs, 'stream', 'sdk-stream', { endpointId: jobs.endpoints.stream }),
    );
  });

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.kill('SIGKILL')));
    await jobs?.close();
  });

  it('run and status', async () => {
    const ep = endpoint('qb');
    const run = await ep.run({ input: { a: 1 } });
    expect(run).toMatchObject({ status: 'IN_QUEUE', id: expect.any(String) });
    let status: Json = {};
    for (let i = 0; i < 50 && status.status !== 'COMPLETED'; i++) {
      status = await ep.status(run.id);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(status).toMatchObject({
      id: run.id,
      status: 'COMPLETED',
      output: { a: 1 },
      completed: true,
      succeeded: true,
    });
  });

  it('runSync with a fast job and with a job slower than its wait (status-sync)', async () => {
    const fast = (await endpoint('qb').runSync({ input: 'fast' })) as unknown as Json;
    expect(fast).toMatchObject({ status: 'COMPLETED', output: 'fast', completed: true, succeeded: true });
    // /runsync?wait=2500 comes back IN_PROGRESS; the SDK then long-polls /status-sync until the job is done.
    const slow = (await endpoint('slow').runSync({ input: { ms: 3000 } }, 2500)) as unknown as Json;
    expect(slow).toMatchObject({ status: 'COMPLETED', output: { slept: 3000 }, succeeded: true });
  }, 60_000);

  it('stream', async () => {
    const ep = endpoint('stream');
    const run = await ep.run({ input: { tokens: 5, delayMs: 100 } });
    const chunks: Json[] = [];
    for await (const chunk of ep.stream(run.id)) chunks.push((chunk as { output: Json }).output);
    expect(chunks.map((c) => c.index)).toEqual([0, 1, 2, 3, 4]);
  });

  it('cancel, health and purgeQueue', async () => {
    const ep = endpoint('idle');
    const queued = await Promise.all([1, 2, 3].map((n) => ep.run({ input: { n } })));
    const cancelled = await ep.cancel(queued[0].id);
    expect(cancelled).toMatchObject({ id: queued[0].id, status: 'CANCELLED' });
    const health = (await ep.health()) as unknown as Json;
    expect(health).toMatchObject({ jobs: { inQueue: 2, inProgress: 0 }, workers: { idle: 0, running: 0 } });
    expect(await ep.purgeQueue()).toEqual({ removed: 2, status: 'completed' });
    expect(((await ep.health()) as unknown as { jobs: Json }).jobs).toMatchObject({ inQueue: 0 });
  });
});
