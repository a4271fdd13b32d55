import { IsIn, IsNotEmpty, IsString, MaxLength } from 'class-validator';
import type { LatencySummary } from './latency-histogram.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/**
 * The windows of GET /v2/serverless/{id}/metrics and their fixed steps: the short ones read the per-minute rollups,
 * the long ones the per-hour rollups (docs/adr/0022-endpoint-metrics.md), so no answer reads more than 168 rows.
 */
export const METRICS_WINDOWS = {
  '5m': { spanMs: 5 * MINUTE_MS, stepMs: MINUTE_MS },
  '1h': { spanMs: HOUR_MS, stepMs: MINUTE_MS },
  '24h': { spanMs: 24 * HOUR_MS, stepMs: HOUR_MS },
  '7d': { spanMs: 7 * 24 * HOUR_MS, stepMs: HOUR_MS },
} as const;
export type MetricsWindow = keyof typeof METRICS_WINDOWS;
export const METRICS_WINDOW_NAMES = Object.keys(METRICS_WINDOWS) as MetricsWindow[];
export const DEFAULT_METRICS_WINDOW: MetricsWindow = '1h';

/** The rollup resolutions (seconds), one row per endpoint, resolution and bucket. */
export const METRICS_STEPS_S = [MINUTE_MS / 1000, HOUR_MS / 1000] as const;

/** `job.qry.metrics`: the gateway has checked the endpoint is the caller's. */
export class EndpointMetricsQuery {
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  endpointId: string;

  @IsIn(METRICS_WINDOW_NAMES)
  window: MetricsWindow;
}

export interface MetricsJobCounts {
  completed: number;
  /** FAILED only; TIMED_OUT is apart. */
  failed: number;
  cancelled: number;
  timedOut: number;
  /** POST /retry calls. */
  retried: number;
}

export interface MetricsWorkerCounts {
  running: number;
  idle: number;
  initializing: number;
  throttled: number;
  unhealthy: number;
}

export interface MetricsWebhookCounts {
  /** Deliveries answered 2xx. */
  delivered: number;
  /** Attempts that failed (each retry that failed counts). */
  failed: number;
  /** Deliveries given up after their last attempt. */
  gaveUp: number;
}

/** One step of the series, at its start `t`. Counters are what happened in the step; gauges its peak. */
export interface MetricsPoint {
  t: string;
  jobs: MetricsJobCounts;
  /** Queued → taken by a worker, for jobs that finished in the step after running (ms). */
  delayTime: LatencySummary;
  /** Taken → finished, for jobs that finished in the step after running (ms). */
  executionTime: LatencySummary;
  /** Workers that asked for their first job in the step. */
  coldStarts: number;
  /** Their worker pod's registration → first job request (ms). */
  coldStartTime: LatencySummary;
  /** Peak queued jobs and peak age of the oldest queued job, sampled every METRICS_SAMPLE_MS. */
  queue: { depth: number; oldestJobAgeMs: number };
  /** Peak workers per status, sampled as the queue is. */
  workers: MetricsWorkerCounts;
  webhooks: MetricsWebhookCounts;
}

/** GET /v2/serverless/{id}/metrics. */
export interface EndpointMetrics {
  endpointId: string;
  window: MetricsWindow;
  stepSeconds: number;
  /** Start of the first step and the time of the answer. */
  from: string;
  to: string;
  /** The counters and latencies over the whole window. */
  totals: Omit<MetricsPoint, 't' | 'queue' | 'workers'>;
  series: MetricsPoint[];
}
