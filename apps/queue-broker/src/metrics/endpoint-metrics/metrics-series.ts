import {
  COLD_START_PHASES,
  METRICS_WINDOWS,
  mergeHistograms,
  summarize,
  type ColdStartPhase,
  type EndpointMetrics,
  type LatencySeries,
  type LatencySummary,
  type MetricsSeries,
  type MetricsWindow,
} from '@app/contracts';
import type { RollupRow } from '../metrics.repository.js';
import { PHASE_HISTOGRAMS, type PhaseHistogram } from '../rollup-deltas.js';

/** The first step of a window ending at `now`: the window's span, aligned on its step, current step included. */
export function windowStart(window: MetricsWindow, now: Date): Date {
  const { spanMs, stepMs } = METRICS_WINDOWS[window];
  const current = Math.floor(now.getTime() / stepMs) * stepMs;
  return new Date(current - spanMs + stepMs);
}

type Counter = { [K in keyof RollupRow]: RollupRow[K] extends number ? K : never }[keyof RollupRow];
type Histogram = 'delayHist' | 'execHist' | 'coldHist' | 'lbLatencyHist' | PhaseHistogram;

/** One value per cold start phase. */
function perPhase<T>(value: (field: PhaseHistogram) => T): Record<ColdStartPhase, T> {
  const out = {} as Record<ColdStartPhase, T>;
  for (const phase of COLD_START_PHASES) out[phase] = value(PHASE_HISTOGRAMS[phase]);
  return out;
}

/** The answer of GET /v2/serverless/{id}/metrics from the window's rollup rows (a missing step is all zeros). */
export function toEndpointMetrics(
  endpointId: string,
  window: MetricsWindow,
  rows: RollupRow[],
  now: Date,
): EndpointMetrics {
  const { spanMs, stepMs } = METRICS_WINDOWS[window];
  const from = windowStart(window, now);
  const byStart = new Map(rows.map((row) => [new Date(row.bucketStart).getTime(), row]));
  const steps: (RollupRow | undefined)[] = [];
  const t: string[] = [];
  for (let at = from.getTime(); at < from.getTime() + spanMs; at += stepMs) {
    t.push(new Date(at).toISOString());
    steps.push(byStart.get(at));
  }
  const counts = (field: Counter) => steps.map((row) => Number(row?.[field] ?? 0));
  const total = (field: Counter) => rows.reduce((sum, row) => sum + Number(row[field]), 0);
  const merged = (field: Histogram) => summarize(mergeHistograms(rows.map((row) => row[field])));
  const series: MetricsSeries = {
    t,
    jobs: {
      completed: counts('completed'),
      failed: counts('failed'),
      cancelled: counts('cancelled'),
      timedOut: counts('timedOut'),
      retried: counts('retried'),
    },
    delayTime: latencySeries(steps, 'delayHist'),
    executionTime: latencySeries(steps, 'execHist'),
    coldStarts: counts('coldStarts'),
    coldStartTime: latencySeries(steps, 'coldHist'),
    coldStartPhases: perPhase((field) => latencySeries(steps, field)),
    queue: { depth: counts('queueDepth'), oldestJobAgeMs: counts('oldestAgeMs') },
    workers: {
      running: counts('workersRunning'),
      idle: counts('workersIdle'),
      initializing: counts('workersInitializing'),
      throttled: counts('workersThrottled'),
      unhealthy: counts('workersUnhealthy'),
    },
    webhooks: {
      delivered: counts('webhooksDelivered'),
      failed: counts('webhooksFailed'),
      gaveUp: counts('webhooksGaveUp'),
    },
    lb: {
      requests: {
        status2xx: counts('lb2xx'),
        status4xx: counts('lb4xx'),
        status5xx: counts('lb5xx'),
        proxyErrors: counts('lbProxyErrors'),
      },
      latency: latencySeries(steps, 'lbLatencyHist'),
    },
  };
  const lbTotal = total('lb2xx') + total('lb4xx') + total('lb5xx') + total('lbProxyErrors');
  return {
    endpointId,
    window,
    stepSeconds: stepMs / 1000,
    from: from.toISOString(),
    to: now.toISOString(),
    totals: {
      jobs: {
        completed: total('completed'),
        failed: total('failed'),
        cancelled: total('cancelled'),
        timedOut: total('timedOut'),
        retried: total('retried'),
      },
      delayTime: merged('delayHist'),
      executionTime: merged('execHist'),
      coldStarts: total('coldStarts'),
      coldStartTime: merged('coldHist'),
      coldStartPhases: perPhase(merged),
      webhooks: {
        delivered: total('webhooksDelivered'),
        failed: total('webhooksFailed'),
        gaveUp: total('webhooksGaveUp'),
      },
      lb: {
        requests: {
          status2xx: total('lb2xx'),
          status4xx: total('lb4xx'),
          status5xx: total('lb5xx'),
          proxyErrors: total('lbProxyErrors'),
        },
        total: lbTotal,
        errorRate: lbTotal ? (total('lb5xx') + total('lbProxyErrors')) / lbTotal : null,
        latency: merged('lbLatencyHist'),
      },
    },
    series,
  };
}

/**
 * Each step's summary, kept with its histogram: the reader's cached rows (rollup-cache.ts) keep their arrays, so a
 * closed step is summarized once, not at every read of every window that shows it.
 */
const summaries = new WeakMap<readonly number[], LatencySummary>();
const EMPTY = summarize([]);

function summaryOf(hist: readonly number[] | undefined): LatencySummary {
  if (!hist) return EMPTY;
  let summary = summaries.get(hist);
  if (!summary) summaries.set(hist, (summary = summarize(hist)));
  return summary;
}

function latencySeries(steps: (RollupRow | undefined)[], field: Histogram): LatencySeries {
  const out: LatencySeries = { count: [], p50: [], p90: [], p99: [] };
  for (const row of steps) {
    const summary = summaryOf(row?.[field]);
    out.count.push(summary.count);
    out.p50.push(summary.p50);
    out.p90.push(summary.p90);
    out.p99.push(summary.p99);
  }
  return out;
}
