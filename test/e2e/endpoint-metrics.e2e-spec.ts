import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  bucketLowerMs,
  bucketOf,
  bucketUpperMs,
  type EndpointMetrics,
  type LatencySummary,
} from '@app/contracts';
import { userWithKey } from '../support/accounts.js';
import { call, eventually, startJobsSystem, type JobsSystem } from './jobs.e2e-helpers.js';

type Json = Record<string, unknown>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The nearest-rank percentile of exact values: what the metrics must match within one bucket. */
function exactPercentile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil(q * sorted.length) - 1];
}

function expectWithinOneBucket(summary: LatencySummary, values: number[]): void {
  expect(summary.count).toBe(values.length);
  for (const [q, estimate] of [
    [0.5, summary.p50],
    [0.9, summary.p90],
    [0.99, summary.p99],
  ] as const) {
    const i = bucketOf(exactPercentile(values, q));
    expect(estimate).not.toBeNull();
    expect(estimate!).toBeGreaterThanOrEqual(Math.floor(bucketLowerMs(i)));
    expect(estimate!).toBeLessThanOrEqual(Math.ceil(bucketUpperMs(i)));
  }
}

/**
 * Endpoint metrics against what was sent: a worker driven over the worker routes registers with a ping, starts
 * taking a second later (one cold start), and runs 20 jobs with known sleeps, 3 that fail (one retried and then
 * completed), while 2 are cancelled in the queue; three jobs carry webhooks (two delivered, one refused until it
 * gives up). The counters must be exact, the percentiles within one bucket of the jobs' own delay and execution
 * times, in every window; then the failure paths and the Prometheus export.
 */
describe('endpoint metrics: GET /v2/serverless/{id}/metrics', () => {
  let jobs: JobsSystem;
  let receiver: Server;
  let receiverPort: number;
  const ep = () => jobs.endpoints.qb;
  const url = (path: string) => `${jobs.gateway}/v2/${ep()}${path}`;
  const metricsUrl = (window?: string) =>
    `${jobs.gateway}/v2/serverless/${ep()}/metrics${window ? `?window=${window}` : ''}`;
  const owner = () => jobs.user.key;
  const workerKey = () => jobs.workerKeys[ep()];
  const metrics = async (window: string) => {
    const reply = await call<EndpointMetrics>('GET', metricsUrl(window), owner(), undefined, {
      bearer: true,
    });
    expect(reply.status).toBe(200);
    return reply.body;
  };
  const status = async (id: string) => (await call<Json>('GET', url(`/status/${id}`), owner())).body;
  const submit = async (input: Json, webhook?: string) => {
    const reply = await call<Json>('POST', url('/run'), owner(), { input, ...(webhook ? { webhook } : {}) });
    expect(reply.status).toBe(200);
    return reply.body.id as string;
  };
  /** Takes the next job as worker w1, waits `ms`, and reports it done (or failed). */
  const runNext = async (expected: string, ms: number, fail = false) => {
    const taken = await call<Json>('GET', url('/job-take/w1?gpu=x&job_in_progress=0'), workerKey());
    expect(taken.body?.id).toBe(expected);
    await sleep(ms);
    const body = fail ? { error: 'boom' } : { output: { slept: ms } };
    const done = await call<Json>(
      'POST',
      url(`/job-done/w1/${expected}?gpu=x&isStream=false`),
      workerKey(),
      body,
    );
    expect(done.status).toBe(200);
  };

  const delays: number[] = [];
  const executions: number[] = [];

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      req.resume();
      res.writeHead(req.url === '/refuse' ? 500 : 200).end();
    });
    receiverPort = await new Promise<number>((resolve) =>
      receiver.listen(0, '127.0.0.2', () => resolve((receiver.address() as AddressInfo).port)),
    );
    jobs = await startJobsSystem('metrics', {
      broker: {
        METRICS_SAMPLE_MS: '1000',
        WEBHOOK_ALLOWED_NETWORKS: '127.0.0.2/32',
        WEBHOOK_RETRY_INTERVAL_MS: '100',
        WEBHOOK_MAX_ATTEMPTS: '2',
      },
    });

    // The worker's pod registers (its first call), and asks for its first job a second later: a cold start.
    expect((await call('GET', url('/ping/w1?gpu=x'), workerKey())).status).toBe(200);
    await sleep(1200);

    const cancelled = [await submit({ n: 'c1' }), await submit({ n: 'c2' })];
    for (const id of cancelled) expect((await call('POST', url(`/cancel/${id}`), owner())).status).toBe(200);
    const hook = (path: string) => `http://127.0.0.2:${receiverPort}${path}`;
    const ok: string[] = [];
    for (let i = 0; i < 20; i++) {
      const webhook = i === 0 || i === 1 ? hook('/ok') : i === 2 ? hook('/refuse') : undefined;
      ok.push(await submit({ n: i }, webhook));
    }
    const failed = [await submit({ f: 1 }), await submit({ f: 2 }), await submit({ f: 3 })];
    // The queue is sampled while it holds 23 jobs.
    await eventually(async () => Math.max(...(await metrics('5m')).series.queue.depth) >= 23, 10_000);

    for (let i = 0; i < 20; i++) await runNext(ok[i], 50 + i * 40);
    for (const id of failed) await runNext(id, 30, true);
    for (const id of [...ok, ...failed]) {
      const s = await status(id);
      delays.push(s.delayTime as number);
      executions.push(s.executionTime as number);
    }
    expect((await call('POST', url(`/retry/${failed[0]}`), owner())).status).toBe(200);
    await runNext(failed[0], 100);
    const retried = await status(failed[0]);
    expect(retried.status).toBe('COMPLETED');
    delays.push(retried.delayTime as number);
    executions.push(retried.executionTime as number);
  }, 120_000);

  afterAll(async () => {
    await jobs?.close();
    receiver?.close();
  });

  it('counts what happened exactly, in every window', async () => {
    const expected = { completed: 21, failed: 3, cancelled: 2, timedOut: 0, retried: 1 };
    const five = await eventually(async () => {
      const m = await metrics('5m');
      return m.totals.jobs.completed === 21 && m.totals.webhooks.gaveUp === 1 ? m : null;
    });
    expect(five.totals.jobs).toEqual(expected);
    expect(five.totals.webhooks).toEqual({ delivered: 2, failed: 2, gaveUp: 1 });
    expect(five.stepSeconds).toBe(60);
    expect(five.series.t).toHaveLength(5);
    for (const [window, steps, stepSeconds] of [
      ['1h', 60, 60],
      ['24h', 24, 3600],
      ['7d', 168, 3600],
    ] as const) {
      const m = await metrics(window);
      expect(m).toMatchObject({ window, stepSeconds });
      expect(m.series.t).toHaveLength(steps);
      expect(m.series.jobs.completed).toHaveLength(steps);
      expect(m.totals.jobs).toEqual(expected);
      expect(m.totals.webhooks).toEqual(five.totals.webhooks);
      expect(m.totals.executionTime.count).toBe(24);
    }
    const sum = (values: number[]) => values.reduce((total, n) => total + n, 0);
    expect(sum(five.series.jobs.completed)).toBe(21);
    expect(sum(five.series.jobs.cancelled)).toBe(2);
    expect(sum(five.series.executionTime.count)).toBe(24);
  });

  it('reports delay and execution percentiles within one bucket of the jobs’ own times', async () => {
    const m = await metrics('1h');
    expectWithinOneBucket(m.totals.executionTime, executions);
    expectWithinOneBucket(m.totals.delayTime, delays);
    expectWithinOneBucket((await metrics('7d')).totals.executionTime, executions);
  });

  it('counts the one cold start with its time, and the queue and workers over time', async () => {
    const m = await eventually(async () => {
      const found = await metrics('5m');
      return found.totals.coldStarts === 1 ? found : null;
    });
    const { rows } = await jobs.sql.query<{ ms: number }>(
      `SELECT EXTRACT(EPOCH FROM first_poll_at - registered_at) * 1000 AS ms FROM queue_broker.workers WHERE id = 'w1'`,
    );
    const coldMs = Number(rows[0].ms);
    expect(coldMs).toBeGreaterThanOrEqual(1000);
    expectWithinOneBucket(m.totals.coldStartTime, [coldMs]);
    expect(Math.max(...m.series.queue.depth)).toBeGreaterThanOrEqual(23);
    expect(Math.max(...m.series.queue.oldestJobAgeMs)).toBeGreaterThan(0);
    const { running, idle } = m.series.workers;
    expect(Math.max(...running.map((n, i) => n + idle[i]))).toBeGreaterThanOrEqual(1);
    expect(m.series.coldStarts.reduce((a, b) => a + b, 0)).toBe(1);
  });

  it('refuses an unknown window or one given twice with a 422 problem, like the other routes', async () => {
    for (const query of ['?window=2h', '?window=5m&window=1h']) {
      const reply = await call<Json>('GET', `${metricsUrl()}${query}`, owner(), undefined, { bearer: true });
      expect(reply.status).toBe(422);
      expect(reply.contentType).toContain('application/problem+json');
      expect(reply.body).toMatchObject({ status: 422, title: expect.any(String) });
      expect(JSON.stringify(reply.body.errors)).toMatch(/window must be/);
    }
    expect((await metrics('1h')).window).toBe('1h');
    const defaulted = await call<EndpointMetrics>('GET', metricsUrl(), owner(), undefined, { bearer: true });
    expect(defaulted.body.window).toBe('1h');
  });

  it("answers 403 for another user's endpoint, 404 for an unknown one, 401 without a key", async () => {
    const bob = await userWithKey(jobs.db.url, 'bob-metrics');
    const other = await call<Json>('GET', metricsUrl('5m'), bob.key, undefined, { bearer: true });
    expect(other.status).toBe(403);
    expect(other.contentType).toContain('application/problem+json');
    const unknown = await call<Json>(
      'GET',
      `${jobs.gateway}/v2/serverless/ep-nope/metrics`,
      owner(),
      undefined,
      { bearer: true },
    );
    expect(unknown.status).toBe(404);
    const anonymous = await fetch(metricsUrl('5m'));
    expect(anonymous.status).toBe(401);
  });

  it('exports bounded Prometheus series from the broker', async () => {
    const text = await eventually(async () => {
      const body = await (await fetch(jobs.system.metricsUrl('queue-broker'))).text();
      return body.includes('endpoint_jobs_finished_total{status="completed"} 21') ? body : null;
    });
    expect(text).toContain('endpoint_jobs_finished_total{status="failed"} 3');
    expect(text).toContain('endpoint_jobs_finished_total{status="cancelled"} 2');
    expect(text).toContain('endpoint_jobs_retried_total 1');
    expect(text).toContain('endpoint_job_execution_seconds_count 24');
    expect(text).toContain('endpoint_worker_cold_starts_total 1');
    expect(text).toMatch(/endpoint_webhook_attempts_total\{outcome="delivered"\} 2/);
    expect(text).toContain(`endpoint_workers{endpoint="${ep()}",status="idle"}`);
    // No series carries a job id.
    expect(text).not.toMatch(/job_id|jobId/);
  });
});
