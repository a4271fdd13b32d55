import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TemplateView, WorkerList } from '@app/contracts';
import { userWithKey } from '../support/accounts.js';
import { echoWorkerCatalog } from '../support/echo-worker.js';
import { GATEWAY_ORIGIN, deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';

const TICK_MS = 200;

interface Pod {
  id: string;
  desiredStatus: string;
  status: string | null;
}

interface JobAnswer {
  id: string;
  status: string;
  output?: { echo: Record<string, unknown>; workerId: string };
}

/**
 * The autoscaler end to end: the five apps, the local runtime running a real worker process per worker pod,
 * a short tick and short idle timeouts.
 */
describe('autoscaler', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let key: string;
  let template: TemplateView;

  async function graphql<T>(query: string): Promise<T> {
    const response = await fetch(`${system.url('gateway')}/graphql?api_key=${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    const body = (await response.json()) as { data?: T; errors?: { message: string }[] };
    if (body.errors) throw new Error(`GraphQL: ${body.errors.map((e) => e.message).join('; ')}`);
    return body.data!;
  }

  async function createEndpoint(fields: string): Promise<string> {
    const data = await graphql<{ saveEndpoint: { id: string } }>(
      `mutation { saveEndpoint(input: { name: "auto", templateId: "${template.id}", gpuIds: "AMPERE_16", ${fields} }) { id } }`,
    );
    return data.saveEndpoint.id;
  }

  async function pods(endpointId: string): Promise<Pod[]> {
    const data = await graphql<{ myself: { endpoints: { id: string; pods: Pod[] }[] } }>(
      'query { myself { endpoints { id pods { id desiredStatus status } } } }',
    );
    return data.myself.endpoints.find((e) => e.id === endpointId)?.pods ?? [];
  }

  async function queue<T>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: T }> {
    const response = await fetch(`${system.url('gateway')}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: response.status, body: (await response.json()) as T };
  }

  async function until<T>(
    what: string,
    probe: () => Promise<T | undefined | false>,
    timeoutMs = 30_000,
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  const running = (list: Pod[]) => list.filter((p) => p.desiredStatus === 'RUNNING');

  async function finished(endpointId: string, jobId: string): Promise<JobAnswer> {
    return until(`job ${jobId}`, async () => {
      const status = await queue<JobAnswer>('GET', `/v2/${endpointId}/status/${jobId}`);
      return status.body.status === 'COMPLETED' || status.body.status === 'FAILED' ? status.body : undefined;
    });
  }

  async function drainTo(endpointId: string, count: number): Promise<void> {
    await until(`${count} workers`, async () => running(await pods(endpointId)).length === count);
  }

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'autoscaler-e2e-'));
    const catalog = echoWorkerCatalog(dir);
    db = await createTestDatabase('autoscaler');
    system = await startApps({
      databaseUrl: db.url,
      env: { RATE_LIMITS_ENABLED: 'false' },
      appEnv: {
        'pod-lifecycle': {
          RUNTIME_DRIVER: 'local',
          LOCAL_IMAGE_CATALOG: catalog,
          LOCAL_PODS_DIR: join(dir, 'pods'),
          LOCAL_READY_MS: '100',
        },
        'endpoint-autoscaler': {
          AUTOSCALER_TICK_MS: String(TICK_MS),
          AUTOSCALER_FAILURE_BACKOFF_MS: '500',
          QUEUE_PUBLIC_URL: GATEWAY_ORIGIN,
          WORKER_PING_INTERVAL_MS: '1000',
        },
      },
    });
    key = (await userWithKey(db.url, 'scaler')).key;
    const response = await fetch(`${system.url('gateway')}/v1/templates`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'echo', imageName: 'test/echo-worker', isServerless: true }),
    });
    template = (await response.json()) as TemplateView;
  });

  afterAll(async () => {
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  });

  it('scales from zero for a /runsync job, then stops the worker after idleTimeout', async () => {
    const id = await createEndpoint('workersMin: 0, workersMax: 2, idleTimeout: 2, scalerValue: 1');
    expect(await pods(id)).toEqual([]);
    const answer = await queue<JobAnswer>('POST', `/v2/${id}/runsync?wait=60000`, {
      input: { hello: 'world' },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ status: 'COMPLETED', output: { echo: { hello: 'world' } } });
    expect(running(await pods(id))).toHaveLength(1);
    const idleSince = Date.now();
    await drainTo(id, 0);
    expect(Date.now() - idleSince).toBeGreaterThanOrEqual(1500);
  });

  it('scales up under a burst (REQUEST_COUNT), never beyond workersMax, and every job completes', async () => {
    const id = await createEndpoint(
      'workersMin: 0, workersMax: 3, idleTimeout: 2, scalerType: "REQUEST_COUNT", scalerValue: 1',
    );
    const jobs = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        queue<JobAnswer>('POST', `/v2/${id}/run`, { input: { i, sleepMs: 1500 } }),
      ),
    );
    let peak = 0;
    await until('3 workers', async () => {
      const up = running(await pods(id)).length;
      peak = Math.max(peak, up);
      return up === 3;
    });
    const results = await Promise.all(jobs.map((job) => finished(id, job.body.id)));
    expect(results.every((r) => r.status === 'COMPLETED')).toBe(true);
    expect(new Set(results.map((r) => r.output!.workerId)).size).toBeGreaterThan(1);
    expect(peak).toBeLessThanOrEqual(3);
    await drainTo(id, 0);
  });

  it('never stops a worker with a job in flight, even past idleTimeout', async () => {
    const id = await createEndpoint('workersMin: 0, workersMax: 1, idleTimeout: 1, scalerValue: 1');
    const job = await queue<JobAnswer>('POST', `/v2/${id}/run`, { input: { sleepMs: 5000 } });
    const worker = await until('a worker', async () => running(await pods(id))[0]);
    // The workers list shows the job it holds, its pod and that the pod has not restarted.
    const busy = await until('the worker holding the job', async () => {
      const list = await queue<WorkerList>('GET', `/v2/serverless/${id}/workers`);
      return list.body.workers.find((w) => w.id === worker.id && w.status === 'RUNNING');
    });
    expect(busy).toMatchObject({
      podId: worker.id,
      currentJobs: [job.body.id],
      currentJobCount: 1,
      restarts: 0,
      unhealthyReason: null,
    });
    const seen = new Set<string>();
    const result = await until('the long job', async () => {
      for (const pod of await pods(id)) seen.add(`${pod.id}:${pod.desiredStatus}`);
      const status = await queue<JobAnswer>('GET', `/v2/${id}/status/${job.body.id}`);
      return status.body.status === 'COMPLETED' ? status.body : undefined;
    });
    expect(result.output!.workerId).toBe(worker.id);
    expect([...seen]).toEqual([`${worker.id}:RUNNING`]);
    await drainTo(id, 0);
  });

  it('does not scale up for lowPriority jobs', async () => {
    const id = await createEndpoint('workersMin: 0, workersMax: 2, idleTimeout: 2, scalerValue: 1');
    await queue('POST', `/v2/${id}/run`, { input: {}, policy: { lowPriority: true } });
    await new Promise((resolve) => setTimeout(resolve, 10 * TICK_MS + 1500));
    expect(await pods(id)).toEqual([]);
    await queue('POST', `/v2/${id}/purge-queue`);
  });

  it('FLASHBOOT keeps a stopped worker and resumes it for the next job', async () => {
    const id = await createEndpoint(
      'workersMin: 0, workersMax: 1, idleTimeout: 1, scalerValue: 1, flashBootType: FLASHBOOT',
    );
    const first = await queue<JobAnswer>('POST', `/v2/${id}/runsync?wait=60000`, { input: { n: 1 } });
    expect(first.body.status).toBe('COMPLETED');
    const stopped = await until('a stopped, kept worker', async () => {
      const list = await pods(id);
      return list.length === 1 && list[0].desiredStatus === 'EXITED' && list[0].status === 'EXITED'
        ? list[0]
        : undefined;
    });
    const second = await queue<JobAnswer>('POST', `/v2/${id}/runsync?wait=60000`, { input: { n: 2 } });
    expect(second.body).toMatchObject({ status: 'COMPLETED', output: { workerId: stopped.id } });
    // The resumed worker's pod has been started once more than it was created.
    const workers = await queue<WorkerList>('GET', `/v2/serverless/${id}/workers`);
    expect(workers.body.workers.find((w) => w.id === stopped.id)).toMatchObject({
      podId: stopped.id,
      // The worker may take its job before the runtime's report of RUNNING is recorded.
      podStatus: expect.stringMatching(/^(STARTING|RUNNING)$/),
      restarts: 1,
      currentJobCount: 0,
    });
  });

  it('recovers when the autoscaler is killed and restarted mid-burst', async () => {
    const id = await createEndpoint(
      'workersMin: 0, workersMax: 3, idleTimeout: 2, scalerType: "REQUEST_COUNT", scalerValue: 1',
    );
    const jobs = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        queue<JobAnswer>('POST', `/v2/${id}/run`, { input: { i, sleepMs: 1000 } }),
      ),
    );
    await until('a first worker', async () => (await pods(id)).length > 0);
    await system.kill('endpoint-autoscaler');
    await system.restart('endpoint-autoscaler');
    const results = await Promise.all(jobs.map((job) => finished(id, job.body.id)));
    expect(results.every((r) => r.status === 'COMPLETED')).toBe(true);
    expect((await pods(id)).length).toBeLessThanOrEqual(3);
    await drainTo(id, 0);
  });

  it('deleting an endpoint terminates its workers and removes it', async () => {
    const id = await createEndpoint('workersMin: 1, workersMax: 1, idleTimeout: 60');
    const [worker] = await until('the minimum worker', async () => {
      const up = running(await pods(id));
      return up.length === 1 ? up : undefined;
    });
    await graphql(
      `mutation { saveEndpoint(input: { id: "${id}", name: "auto", templateId: "${template.id}", gpuIds: "AMPERE_16", workersMin: 0, workersMax: 0 }) { id } }`,
    );
    await graphql(`mutation { deleteEndpoint(id: "${id}") }`);
    const list = await graphql<{ myself: { endpoints: { id: string }[] } }>(
      'query { myself { endpoints { id } } }',
    );
    expect(list.myself.endpoints.map((e) => e.id)).not.toContain(id);
    await until('the worker pod terminated', async () => {
      const pod = await queue<{ status?: string }>('GET', `/v1/pods/${worker.id}`);
      return pod.status === 404 || pod.body.status === 'TERMINATED';
    });
  });
});
