import { IsIn, IsNotEmpty, IsString, MaxLength } from 'class-validator';
import type { LatencySummary } from './latency-histogram.js';
import type { MetricsLbRequestCounts } from './lb-requests.contracts.js';

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

/**
 * The phases of a worker's cold start (ms each), from the autoscaler's decision to its first job request:
 * - `placement`: the create decision → pod-lifecycle answered the pod's create (placed on a host);
 * - `runtimeStart`: placed → the pod RUNNING, split into `imagePull` (placed → STARTING) and `containerStart`
 *   (STARTING → RUNNING) when the runtime reported STARTING;
 * - `workerReady`: RUNNING → the worker's first job request.
 * A phase whose ends were not both recorded (a worker that called before it was registered, a pod that skipped
 * STARTING) is left out of that phase's figures only.
 */
export const COLD_START_PHASES = [
  'placement',
  'runtimeStart',
  'imagePull',
  'containerStart',
  'workerReady',
] as const;
export type ColdStartPhase = (typeof COLD_START_PHASES)[number];

/** p50, p90, p99 (ms; null for a step without samples) and the sample count of each step. */
export interface LatencySeries {
  count: number[];
  p50: (number | null)[];
  p90: (number | null)[];
  p99: (number | null)[];
}

/**
 * The window step by step, as one array per measure (index i is the step starting at `t[i]`). Counters are what
 * happened in the step; queue and workers are the step's peak, sampled every METRICS_SAMPLE_MS.
 */
export interface MetricsSeries {
  t: string[];
  jobs: { [K in keyof MetricsJobCounts]: number[] };
  /** Queued → taken by a worker, for jobs that finished in the step after running (ms). */
  delayTime: LatencySeries;
  /** Taken → finished, for jobs that finished in the step after running (ms). */
  executionTime: LatencySeries;
  /** Workers that asked for their first job in the step. */
  coldStarts: number[];
  /** Their worker pod's registration → first job request (ms). */
  coldStartTime: LatencySeries;
  /** Their cold starts' phases (COLD_START_PHASES), in the step of the first job request. */
  coldStartPhases: Record<ColdStartPhase, LatencySeries>;
  /** Peak queued jobs and peak age of the oldest queued job (ms). */
  queue: { depth: number[]; oldestJobAgeMs: number[] };
  /** Peak workers per status. */
  workers: { [K in keyof MetricsWorkerCounts]: number[] };
  webhooks: { [K in keyof MetricsWebhookCounts]: number[] };
  /**
   * Load-balancing endpoints (all zeros for a queue endpoint): requests per status class that ended in the step
   * (divide by `stepSeconds` for a rate) and their latency, request → response end (ms), as the gateways counted.
   */
  lb: { requests: { [K in keyof MetricsLbRequestCounts]: number[] }; latency: LatencySeries };
}

/** The counters and latencies over the whole window. */
export interface MetricsTotals {
  jobs: MetricsJobCounts;
  delayTime: LatencySummary;
  executionTime: LatencySummary;
  coldStarts: number;
  coldStartTime: LatencySummary;
  /** The window's cold starts phase by phase (COLD_START_PHASES); a start counts in the phases it recorded. */
  coldStartPhases: Record<ColdStartPhase, LatencySummary>;
  webhooks: MetricsWebhookCounts;
  /** Load-balancing endpoints: the window's requests, their error rate (5xx and proxy errors / all; null with none). */
  lb: { requests: MetricsLbRequestCounts; total: number; errorRate: number | null; latency: LatencySummary };
}

/** GET /v2/serverless/{id}/metrics. */
export interface EndpointMetrics {
  endpointId: string;
  window: MetricsWindow;
  stepSeconds: number;
  /** Start of the first step and the time of the answer. */
  from: string;
  to: string;
  totals: MetricsTotals;
  series: MetricsSeries;
}
