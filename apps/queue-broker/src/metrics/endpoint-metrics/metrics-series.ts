import {
  METRICS_WINDOWS,
  mergeHistograms,
  summarize,
  type EndpointMetrics,
  type MetricsPoint,
  type MetricsWindow,
} from '@app/contracts';
import type { RollupRow } from '../metrics.repository.js';

/** The first step of a window ending at `now`: the window's span, aligned on its step, current step included. */
export function windowStart(window: MetricsWindow, now: Date): Date {
  const { spanMs, stepMs } = METRICS_WINDOWS[window];
  const current = Math.floor(now.getTime() / stepMs) * stepMs;
  return new Date(current - spanMs + stepMs);
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
  const series: MetricsPoint[] = [];
  for (let t = from.getTime(); t < from.getTime() + spanMs; t += stepMs) {
    series.push(toPoint(new Date(t), byStart.get(t) ?? null));
  }
  const sum = (pick: (row: RollupRow) => number) => rows.reduce((total, row) => total + Number(pick(row)), 0);
  return {
    endpointId,
    window,
    stepSeconds: stepMs / 1000,
    from: from.toISOString(),
    to: now.toISOString(),
    totals: {
      jobs: {
        completed: sum((r) => r.completed),
        failed: sum((r) => r.failed),
        cancelled: sum((r) => r.cancelled),
        timedOut: sum((r) => r.timedOut),
        retried: sum((r) => r.retried),
      },
      delayTime: summarize(mergeHistograms(rows.map((r) => r.delayHist))),
      executionTime: summarize(mergeHistograms(rows.map((r) => r.execHist))),
      coldStarts: sum((r) => r.coldStarts),
      coldStartTime: summarize(mergeHistograms(rows.map((r) => r.coldHist))),
      webhooks: {
        delivered: sum((r) => r.webhooksDelivered),
        failed: sum((r) => r.webhooksFailed),
        gaveUp: sum((r) => r.webhooksGaveUp),
      },
    },
    series,
  };
}

function toPoint(t: Date, row: RollupRow | null): MetricsPoint {
  const hist = (h: number[] | undefined) => summarize(mergeHistograms([h]));
  return {
    t: t.toISOString(),
    jobs: {
      completed: row?.completed ?? 0,
      failed: row?.failed ?? 0,
      cancelled: row?.cancelled ?? 0,
      timedOut: row?.timedOut ?? 0,
      retried: row?.retried ?? 0,
    },
    delayTime: hist(row?.delayHist),
    executionTime: hist(row?.execHist),
    coldStarts: row?.coldStarts ?? 0,
    coldStartTime: hist(row?.coldHist),
    queue: { depth: row?.queueDepth ?? 0, oldestJobAgeMs: Number(row?.oldestAgeMs ?? 0) },
    workers: {
      running: row?.workersRunning ?? 0,
      idle: row?.workersIdle ?? 0,
      initializing: row?.workersInitializing ?? 0,
      throttled: row?.workersThrottled ?? 0,
      unhealthy: row?.workersUnhealthy ?? 0,
    },
    webhooks: {
      delivered: row?.webhooksDelivered ?? 0,
      failed: row?.webhooksFailed ?? 0,
      gaveUp: row?.webhooksGaveUp ?? 0,
    },
  };
}
