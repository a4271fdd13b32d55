import { describe, expect, it } from '@jest/globals';
import { bucketOf, type JobChangedEvent } from '@app/contracts';
import { toEndpointMetrics, windowStart } from './endpoint-metrics/metrics-series.js';
import type { RollupRow } from './metrics.repository.js';
import { RollupDeltas } from './rollup-deltas.js';

const at = new Date('2026-11-24T10:15:30Z');
const finished = (status: JobChangedEvent['status'], delayMs: number | null, executionMs: number | null) =>
  ({ endpointId: 'ep', jobId: 'j', status, timing: { delayMs, executionMs } }) as JobChangedEvent;

describe('rollup deltas', () => {
  it('counts final statuses and latencies into the minute and the hour, and nothing for progress', () => {
    const deltas = new RollupDeltas();
    deltas.jobChanged(finished('COMPLETED', 40, 1000), at);
    deltas.jobChanged(finished('TIMED_OUT', 10, 600_000), at);
    deltas.jobChanged(finished('CANCELLED', null, null), at);
    deltas.jobChanged(finished('IN_PROGRESS', null, null), at);
    deltas.jobQueued({ endpointId: 'ep', jobId: 'j', retried: true }, at);
    deltas.jobQueued({ endpointId: 'ep', jobId: 'k' }, at);
    const [minute, hour] = deltas.list().sort((a, b) => a.stepS - b.stepS);
    expect(minute.bucketStart.toISOString()).toBe('2026-11-24T10:15:00.000Z');
    expect(hour.bucketStart.toISOString()).toBe('2026-11-24T10:00:00.000Z');
    for (const row of [minute, hour]) {
      expect(row).toMatchObject({ completed: 1, timedOut: 1, cancelled: 1, failed: 0, retried: 1 });
      expect(row.execHist.reduce((a, b) => a + b, 0)).toBe(2);
      expect(row.delayHist.reduce((a, b) => a + b, 0)).toBe(2);
    }
  });

  it("counts a cold start in its first request's step, with each phase recorded in that phase's histogram", () => {
    const deltas = new RollupDeltas();
    const registered = new Date(at.getTime() - 3000);
    deltas.coldStart('ep', registered, at, { placement: 120, runtimeStart: 2500, workerReady: 400 });
    deltas.coldStart('ep', registered, at);
    for (const row of deltas.list()) {
      const count = (hist: number[]) => hist.reduce((a, b) => a + b, 0);
      expect(row.coldStarts).toBe(2);
      expect(count(row.coldHist)).toBe(2);
      expect([row.placementHist, row.runtimeHist, row.readyHist].map(count)).toEqual([1, 1, 1]);
      expect([row.pullHist, row.containerHist].map(count)).toEqual([0, 0]);
      expect(row.runtimeHist.length - 1).toBe(bucketOf(2500));
    }
  });

  it('counts a webhook that gave up as a failed attempt too', () => {
    const deltas = new RollupDeltas();
    deltas.webhook('ep', at, 'gaveUp');
    deltas.webhook('ep', at, 'delivered');
    expect(deltas.list()[0]).toMatchObject({ webhooksDelivered: 1, webhooksFailed: 1, webhooksGaveUp: 1 });
  });
});

describe('metrics series', () => {
  it('has one point per step of the window, zeros where no row is, totals over the rows', () => {
    const now = new Date('2026-11-24T10:15:30Z');
    expect(windowStart('5m', now).toISOString()).toBe('2026-11-24T10:11:00.000Z');
    const row = (minute: number, completed: number): RollupRow => ({
      bucketStart: new Date(`2026-11-24T10:${minute}:00Z`),
      completed,
      failed: 0,
      cancelled: 0,
      timedOut: 0,
      retried: 0,
      delayHist: [],
      execHist: [0, 0, completed],
      coldStarts: 0,
      coldHist: [],
      placementHist: [],
      runtimeHist: [],
      pullHist: [],
      containerHist: [0, 0, completed],
      readyHist: [],
      queueDepth: 3,
      oldestAgeMs: 1500,
      workersRunning: 1,
      workersIdle: 0,
      workersInitializing: 0,
      workersThrottled: 0,
      workersUnhealthy: 0,
      webhooksDelivered: 0,
      webhooksFailed: 0,
      webhooksGaveUp: 0,
      lb2xx: completed,
      lb4xx: 0,
      lb5xx: 1,
      lbProxyErrors: 0,
      lbLatencyHist: [completed],
    });
    const metrics = toEndpointMetrics('ep', '5m', [row(12, 2), row(15, 3)], now);
    expect(metrics.stepSeconds).toBe(60);
    expect(metrics.series.jobs.completed).toEqual([0, 2, 0, 0, 3]);
    expect(metrics.series.t[1]).toBe('2026-11-24T10:12:00.000Z');
    expect(metrics.series.queue).toEqual({ depth: [0, 3, 0, 0, 3], oldestJobAgeMs: [0, 1500, 0, 0, 1500] });
    expect(metrics.totals.jobs.completed).toBe(5);
    expect(metrics.totals.executionTime.count).toBe(5);
    expect(metrics.series.executionTime.count).toEqual([0, 2, 0, 0, 3]);
    expect(metrics.series.executionTime.p50[0]).toBeNull();
    expect(metrics.series.executionTime.p50[1]).toBeGreaterThan(1);
    expect(metrics.totals.coldStartPhases.containerStart.count).toBe(5);
    expect(metrics.totals.coldStartPhases.placement).toEqual({ count: 0, p50: null, p90: null, p99: null });
    expect(metrics.series.coldStartPhases.containerStart.count).toEqual([0, 2, 0, 0, 3]);
    expect(metrics.series.lb.requests.status2xx).toEqual([0, 2, 0, 0, 3]);
    expect(metrics.series.lb.latency.count).toEqual([0, 2, 0, 0, 3]);
    expect(metrics.totals.lb).toMatchObject({
      requests: { status2xx: 5, status4xx: 0, status5xx: 2, proxyErrors: 0 },
      total: 7,
      errorRate: 2 / 7,
    });
    expect(toEndpointMetrics('ep', '7d', [], now).totals.lb.errorRate).toBeNull();
    expect(toEndpointMetrics('ep', '7d', [], now).series.t).toHaveLength(168);
  });
});
