import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { EndpointMetrics, TemplateView, WorkerList } from '@app/contracts';
import { userWithKey } from '../support/accounts.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { LbClient, until } from './lb-endpoints.e2e-helpers.js';

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

/**
 * LB request metrics end to end (docs/adr/0026, "Request metrics"): requests through the gateway to a real example
 * LB worker (`gpucp/lb-worker`, a process of the local runtime) are counted by status class and latency, recorded
 * by the gateway every LB_METRICS_FLUSH_MS as one command, and read back from GET /v2/serverless/{id}/metrics.
 */
describe('load-balancing request metrics', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let alice: LbClient;
  let template: TemplateView;

  const api = async <T>(path: string): Promise<T> => {
    const response = await fetch(`${system.url('gateway')}${path}`, {
      headers: { authorization: `Bearer ${alice.key}` },
    });
    expect(response.status).toBe(200);
    return (await response.json()) as T;
  };

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lb-metrics-e2e-'));
    db = await createTestDatabase('lb_metrics');
    system = await startApps({
      databaseUrl: db.url,
      appEnv: {
        gateway: { LB_METRICS_FLUSH_MS: '300', LB_RESPONSE_TIMEOUT_MS: '1500', LB_REPORT_MS: '200' },
        'pod-lifecycle': {
          RUNTIME_DRIVER: 'local',
          LOCAL_IMAGE_CATALOG: resolve('apps/pod-lifecycle/local-images.json'),
          LOCAL_PODS_DIR: join(dir, 'pods'),
          LOCAL_READY_MS: '100',
          LB_PING_INTERVAL_MS: '200',
        },
        'endpoint-autoscaler': { AUTOSCALER_TICK_MS: '200' },
      },
    });
    alice = new LbClient(system, (await userWithKey(db.url, 'alice')).key);
    template = await alice.template('gpucp/lb-worker');
  });

  afterAll(async () => {
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  });

  it('counts requests by status class with their latency, and the worker RUNNING while it serves', async () => {
    const id = await alice.saveEndpoint(template.id, 'type: "LB", workersMin: 1, workersMax: 1');
    await until('a ready worker', async () => (await alice.lb(id, '/')).status === 200, 60_000);

    // A request in flight: the worker shows RUNNING in the workers list, IDLE once it is answered.
    const slow = alice.lb(id, '/slow?ms=1000');
    const busy = await until('the worker RUNNING', async () => {
      const list = await api<WorkerList>(`/v2/serverless/${id}/workers`);
      return list.workers[0]?.status === 'RUNNING' ? list : undefined;
    });
    expect(busy.summary).toMatchObject({ total: 1, running: 1, idle: 0 });
    expect((await slow).status).toBe(200);
    const idle = await api<WorkerList>(`/v2/serverless/${id}/workers`);
    expect(idle.workers.map((w) => w.status)).toEqual(['IDLE']);

    for (let i = 0; i < 6; i++) expect((await alice.lb(id, '/')).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await alice.lb(id, '/no-such-route')).status).toBe(404);
    // Longer than LB_RESPONSE_TIMEOUT_MS: the gateway answers 504 for the worker, a proxy error.
    expect((await alice.lb(id, '/slow?ms=4000')).status).toBe(504);
    // Refused before it reached the endpoint (no key): not the endpoint's request, not counted.
    expect((await alice.lb(id, '/', { key: null })).status).toBe(401);

    // The readiness probe and the slow one count too: 1 + 1 + 6 answered 2xx (the probe may have been repeated).
    const metrics = await until('the requests in the metrics', async () => {
      const m = await api<EndpointMetrics>(`/v2/serverless/${id}/metrics?window=5m`);
      return m.totals.lb.requests.proxyErrors === 1 && m.totals.lb.requests.status4xx === 2 ? m : undefined;
    });
    const { requests, total, errorRate, latency } = metrics.totals.lb;
    expect(requests.status2xx).toBeGreaterThanOrEqual(8);
    expect(requests.status5xx).toBe(0);
    expect(total).toBe(requests.status2xx + 3);
    expect(errorRate).toBeCloseTo(1 / total, 6);
    expect(latency.count).toBe(total);
    // The 504 came after LB_RESPONSE_TIMEOUT_MS (1.5 s): the slowest request, p99 of so few.
    expect(latency.p99).toBeGreaterThan(1500 / 1.19);
    expect(latency.p50).toBeLessThan(1000);
    const { lb, workers } = metrics.series;
    expect(sum(lb.requests.status2xx)).toBe(requests.status2xx);
    expect(sum(lb.requests.status4xx)).toBe(2);
    expect(sum(lb.latency.count)).toBe(total);
    // Workers by status, as the gateway saw them at its flushes: the one worker, running or idle.
    expect(Math.max(...workers.running)).toBe(1);
    expect(Math.max(...workers.idle)).toBe(1);

    const week = await api<EndpointMetrics>(`/v2/serverless/${id}/metrics?window=7d`);
    expect(week.totals.lb.requests).toEqual(requests);
  });
});
