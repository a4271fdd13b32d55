import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { call, startJobsSystem, type JobsSystem } from './jobs.e2e-helpers.js';

type Json = Record<string, unknown>;

const REPEAT_MS = 800;

/**
 * management-api.md §4: the stock Python worker drops a job-stop that arrives before it has created the job's task
 * and runs the job to its end, while its pings keep listing the job. The worker here does the same by hand: it
 * takes a job, reads the stop and ignores it.
 */
describe('job-stop, repeated for a worker that dropped it', () => {
  let jobs: JobsSystem;
  const url = (path: string) => `${jobs.gateway}/v2/${jobs.endpoints.manual}${path}`;
  const workerKey = () => jobs.workerKeys[jobs.endpoints.manual];
  const stops = async () =>
    ((await call('GET', url('/job-stop/w1'), workerKey())).body as { jobsToStop?: string[] } | undefined)
      ?.jobsToStop ?? [];
  const ping = async (jobIds: string[]) =>
    expect((await call('GET', url(`/ping/w1?job_id=${jobIds.join(',')}`), workerKey())).status).toBe(200);
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

  beforeAll(async () => {
    jobs = await startJobsSystem('job_stops', {
      endpoints: ['manual'],
      broker: { STOP_REPEAT_AFTER_MS: String(REPEAT_MS) },
      gateway: { JOB_STOP_LONG_POLL_MS: '300' },
    });
  });

  afterAll(async () => {
    await jobs?.close();
  });

  it('names a cancelled job again while the pings list it, and ignores the late result', async () => {
    const accepted = await call('POST', url('/run'), jobs.user.key, { input: { n: 1 } });
    const id = (accepted.body as Json).id as string;
    const taken = await call('GET', url('/job-take/w1?gpu=x&job_in_progress=0'), workerKey());
    expect((taken.body as Json).id).toBe(id);
    expect((await call('POST', url(`/cancel/${id}`), jobs.user.key)).body).toMatchObject({
      status: 'CANCELLED',
    });

    expect(await stops()).toEqual([id]); // read, and dropped by the worker
    await ping([id]); // sent before the stop reached the worker, for all the broker can tell
    expect(await stops()).toEqual([]);

    await pause(REPEAT_MS + 200);
    await ping([id]); // still running it
    expect(await stops()).toEqual([id]);

    await pause(REPEAT_MS + 200);
    await ping([]); // it has let go
    expect(await stops()).toEqual([]);

    const late = await call('POST', url(`/job-done/w1/${id}`), workerKey(), { output: { n: 1 } });
    expect(late.status).toBe(200);
    expect(late.body).toMatchObject({ recorded: 'ignored' });
    const status = await call('GET', url(`/status/${id}`), jobs.user.key);
    expect(status.body).toMatchObject({ id, status: 'CANCELLED' });
    expect((status.body as Json).output).toBeUndefined();
  });

  it("never names a job that is still running, nor another worker's", async () => {
    const accepted = await call('POST', url('/run'), jobs.user.key, { input: { n: 2 } });
    const id = (accepted.body as Json).id as string;
    expect(
      ((await call('GET', url('/job-take/w1?gpu=x&job_in_progress=0'), workerKey())).body as Json).id,
    ).toBe(id);
    await pause(REPEAT_MS + 200);
    await ping([id]);
    expect(await stops()).toEqual([]);
    const other = await call('GET', url(`/ping/w2?job_id=${id}`), workerKey());
    expect(other.status).toBe(200);
    expect((await call('GET', url('/job-stop/w2'), workerKey())).body).toMatchObject({ jobsToStop: [] });
    expect((await call('POST', url(`/job-done/w1/${id}`), workerKey(), { output: 'ok' })).body).toMatchObject(
      {
        recorded: 'completed',
      },
    );
  });
});
