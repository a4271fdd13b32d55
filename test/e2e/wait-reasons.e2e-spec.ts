import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EndpointHealth, JobView, TemplateView } from '@app/contracts';
import { userWithKey } from '../support/accounts.js';
import { echoWorkerCatalog } from '../support/echo-worker.js';
import { GATEWAY_ORIGIN, deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';

/**
 * Why a job waits, through a worker that speaks the stock Python worker's protocol (test/support/echo-worker.ts: a
 * real process, run by the local runtime, taking and posting as runpod-python does; the Python package itself is
 * not installable here): the five apps, a short tick.
 */
describe('wait reasons through the stock worker protocol', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let key: string;

  async function call<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
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
    timeoutMs = 60_000,
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wait-reasons-e2e-'));
    db = await createTestDatabase('wait_reasons');
    system = await startApps({
      databaseUrl: db.url,
      env: { RATE_LIMITS_ENABLED: 'false' },
      appEnv: {
        'pod-lifecycle': {
          RUNTIME_DRIVER: 'local',
          LOCAL_IMAGE_CATALOG: echoWorkerCatalog(dir),
          LOCAL_PODS_DIR: join(dir, 'pods'),
          LOCAL_READY_MS: '100',
        },
        'endpoint-autoscaler': {
          AUTOSCALER_TICK_MS: '200',
          QUEUE_PUBLIC_URL: GATEWAY_ORIGIN,
          WORKER_PING_INTERVAL_MS: '1000',
        },
      },
    });
    key = (await userWithKey(db.url, 'waiter')).key;
  });

  afterAll(async () => {
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  });

  it('a job waits with WORKER_STARTING (and its phase) while its worker starts; the reason clears once taken', async () => {
    // The worker loads for 2.5 s after its pod runs (as one loading a model), before its first take.
    const template = await call<TemplateView>('POST', '/v1/templates', {
      name: 'echo-slow',
      imageName: 'test/echo-worker',
      isServerless: true,
      env: { ECHO_START_DELAY_MS: '2500' },
    });
    const endpoint = await call<{ id: string }>('POST', '/v2/serverless', {
      name: 'slow',
      type: 'QUEUE',
      templateId: template.body.id,
      gpu: { pools: ['AMPERE_16'], count: 1 },
      workers: { min: 0, max: 1 },
    });
    expect(endpoint.status).toBe(201);
    const id = endpoint.body.id;
    const accepted = await call<JobView>('POST', `/v2/${id}/run`, { input: { slow: true } });
    const jobId = accepted.body.id;
    const phases = new Set<string>();
    const sinces = new Set<string>();
    const done = await until('the job to finish', async () => {
      const status = await call<JobView>('GET', `/v2/${id}/status/${jobId}`);
      if (status.body.status === 'IN_QUEUE' && status.body.reason?.code === 'WORKER_STARTING') {
        phases.add(String(status.body.reason.details?.phase));
        sinces.add(status.body.reason.since);
      }
      return status.body.status === 'COMPLETED' ? status.body : undefined;
    });
    expect(phases).toContain('WAITING_FOR_WORKER');
    for (const phase of phases) {
      expect(['PLACING', 'PULLING_IMAGE', 'STARTING_CONTAINER', 'WAITING_FOR_WORKER']).toContain(phase);
    }
    // When the wait began, not when it was read: one since through every phase.
    expect(sinces.size).toBe(1);
    expect(done).toMatchObject({ status: 'COMPLETED', output: { echo: { slow: true } } });
    expect(done).not.toHaveProperty('reason');
    // Its worker up and idle: nothing holds the endpoint's jobs (once the loop and the edge's cache have seen it).
    await until('the endpoint reason to clear', async () => {
      const health = await call<EndpointHealth>('GET', `/v2/${id}/health`);
      return health.body.waitReason === undefined;
    });
  });

  it('an endpoint whose workers crash at start shows WORKERS_CRASH_LOOPING with the last lines they printed', async () => {
    const template = await call<TemplateView>('POST', '/v1/templates', {
      name: 'echo-crash',
      imageName: 'test/echo-worker',
      isServerless: true,
      env: { ECHO_CRASH: 'RuntimeError: CUDA error: out of memory' },
    });
    const endpoint = await call<{ id: string }>('POST', '/v2/serverless', {
      name: 'crashing',
      type: 'QUEUE',
      templateId: template.body.id,
      gpu: { pools: ['AMPERE_16'], count: 1 },
      workers: { min: 1, max: 1 },
    });
    const id = endpoint.body.id;
    const reason = await until(
      'the crash loop to be reported',
      async () => {
        const health = await call<EndpointHealth>('GET', `/v2/${id}/health`);
        const why = health.body.waitReason;
        return why?.code === 'WORKERS_CRASH_LOOPING' && why.details?.lastLogLines ? why : undefined;
      },
      90_000,
    );
    expect(reason.details).toMatchObject({ exitCode: 3, podId: expect.any(String) });
    expect(Number(reason.details?.restarts)).toBeGreaterThanOrEqual(2);
    expect(reason.details?.lastLogLines).toEqual(
      expect.arrayContaining(['loading the model', 'RuntimeError: CUDA error: out of memory']),
    );
  });
});
