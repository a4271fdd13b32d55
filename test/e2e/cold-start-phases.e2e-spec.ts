import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import {
  COLD_START_PHASES,
  bucketLowerMs,
  bucketOf,
  bucketUpperMs,
  type EndpointMetrics,
  type LatencySummary,
  type TemplateView,
} from '@app/contracts';
import { userWithKey } from '../support/accounts.js';
import { echoWorkerCatalog } from '../support/echo-worker.js';
import { GATEWAY_ORIGIN, deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';

const READY_MS = 400;

/** Within the bucket of `ms` (a percentile of one sample is that sample's bucket). */
function expectInBucketOf(summary: LatencySummary, ms: number): void {
  expect(summary.count).toBe(1);
  const i = bucketOf(ms);
  for (const estimate of [summary.p50, summary.p99]) {
    expect(estimate!).toBeGreaterThanOrEqual(Math.floor(bucketLowerMs(i)));
    expect(estimate!).toBeLessThanOrEqual(Math.ceil(bucketUpperMs(i)));
  }
}

/**
 * Cold starts broken down, end to end: the five apps, the local runtime running a real worker process for the worker
 * pod the autoscaler creates when a job arrives at an empty endpoint. The worker's start is timed by the
 * autoscaler's decision and the create's answer (its register), the pod's STARTING and RUNNING (pod-lifecycle's
 * events) and the worker's first job request; the metrics API and the broker's /metrics show each phase.
 */
describe('cold start phases', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let sql: pg.Client;
  let key: string;
  let endpointId: string;

  const api = async <T>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: T }> => {
    const response = await fetch(`${system.url('gateway')}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: response.status, body: (await response.json()) as T };
  };

  async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>): Promise<T> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const value = await probe();
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cold-phases-e2e-'));
    db = await createTestDatabase('cold_phases');
    system = await startApps({
      databaseUrl: db.url,
      env: { RATE_LIMITS_ENABLED: 'false' },
      appEnv: {
        'pod-lifecycle': {
          RUNTIME_DRIVER: 'local',
          LOCAL_IMAGE_CATALOG: echoWorkerCatalog(dir),
          LOCAL_PODS_DIR: join(dir, 'pods'),
          LOCAL_READY_MS: String(READY_MS),
        },
        'endpoint-autoscaler': {
          AUTOSCALER_TICK_MS: '200',
          QUEUE_PUBLIC_URL: GATEWAY_ORIGIN,
          WORKER_PING_INTERVAL_MS: '1000',
        },
        'queue-broker': { METRICS_SAMPLE_MS: '1000' },
      },
    });
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    key = (await userWithKey(db.url, 'cold')).key;
    const template = (
      await api<TemplateView>('POST', '/v1/templates', {
        name: 'echo',
        imageName: 'test/echo-worker',
        isServerless: true,
      })
    ).body;
    const saved = await fetch(`${system.url('gateway')}/graphql?api_key=${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: `mutation { saveEndpoint(input: { name: "cold", templateId: "${template.id}", gpuIds: "AMPERE_16", workersMin: 0, workersMax: 1, idleTimeout: 60, scalerValue: 1 }) { id } }`,
      }),
    });
    endpointId = ((await saved.json()) as { data: { saveEndpoint: { id: string } } }).data.saveEndpoint.id;
    const answer = await api<{ status: string }>('POST', `/v2/${endpointId}/runsync?wait=60000`, {
      input: { hello: 'cold' },
    });
    expect(answer.body.status).toBe('COMPLETED');
  }, 120_000);

  afterAll(async () => {
    await sql?.end();
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  });

  it("shows the worker start's phases in the metrics API, each as its recorded times say", async () => {
    const metrics = await until('the cold start counted', async () => {
      const reply = await api<EndpointMetrics>('GET', `/v2/serverless/${endpointId}/metrics?window=5m`);
      return reply.body.totals.coldStarts === 1 ? reply.body : null;
    });
    const { rows } = await sql.query<Record<string, Date>>(
      `SELECT s.decided_at, s.placed_at, s.starting_at, s.running_at, w.first_poll_at
         FROM queue_broker.worker_starts s JOIN queue_broker.workers w ON w.id = s.worker_id
        WHERE s.endpoint_id = $1`,
      [endpointId],
    );
    expect(rows).toHaveLength(1);
    const times = rows[0];
    for (const column of ['decided_at', 'placed_at', 'starting_at', 'running_at', 'first_poll_at']) {
      expect(times[column]).toBeInstanceOf(Date);
    }
    // The decision is the autoscaler's create scaling event.
    const decided = await sql.query<{ at: Date }>(
      `SELECT at FROM endpoint_autoscaler.scaling_events WHERE endpoint_id = $1 AND action = 'create'`,
      [endpointId],
    );
    expect(decided.rows.map((row) => row.at.getTime())).toEqual([times.decided_at.getTime()]);
    const span = (from: string, to: string) => Math.max(0, times[to].getTime() - times[from].getTime());
    const phases = metrics.totals.coldStartPhases;
    expectInBucketOf(phases.placement, span('decided_at', 'placed_at'));
    expectInBucketOf(phases.runtimeStart, span('placed_at', 'running_at'));
    expectInBucketOf(phases.imagePull, span('placed_at', 'starting_at'));
    expectInBucketOf(phases.containerStart, span('starting_at', 'running_at'));
    expectInBucketOf(phases.workerReady, span('running_at', 'first_poll_at'));
    // The local runtime reports RUNNING LOCAL_READY_MS after the container started.
    expect(span('starting_at', 'running_at')).toBeGreaterThanOrEqual(READY_MS);
    // The phases cover the start from decision to first request.
    expect(
      span('decided_at', 'placed_at') + span('placed_at', 'running_at') + span('running_at', 'first_poll_at'),
    ).toBeGreaterThanOrEqual(span('decided_at', 'first_poll_at'));
    for (const phase of COLD_START_PHASES) {
      expect(metrics.series.coldStartPhases[phase].count.reduce((a, b) => a + b, 0)).toBe(1);
    }
  });

  it('exports a histogram per phase, labelled with the endpoint, from the broker', async () => {
    const text = await until('the phases on /metrics', async () => {
      const body = await (await fetch(system.metricsUrl('queue-broker'))).text();
      return body.includes('endpoint_worker_cold_start_phase_seconds_count') ? body : null;
    });
    for (const phase of ['placement', 'runtime_start', 'image_pull', 'container_start', 'worker_ready']) {
      expect(text).toContain(
        `endpoint_worker_cold_start_phase_seconds_count{endpoint="${endpointId}",phase="${phase}"} 1`,
      );
    }
    expect(text).toContain('endpoint_worker_cold_starts_total 1');
  });
});
