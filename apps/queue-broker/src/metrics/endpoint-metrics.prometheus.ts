import { Counter, Gauge, Histogram } from 'prom-client';
import { COLD_START_PHASES, type ColdStartPhase } from '@app/contracts';
import { metricsRegistry } from '@app/observability';
import type { ColdStartPhaseTimes } from './cold-start-phases.js';
import type { GaugeSample } from './rollup-deltas.js';

const LATENCY_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];
/** The `endpoint` label value of the endpoints beyond METRICS_PROMETHEUS_ENDPOINTS. */
export const OTHER_ENDPOINTS = '_other';

/**
 * Endpoint metrics for Prometheus (docs/adr/0022-endpoint-metrics.md). Counters and histograms have no endpoint
 * label (bounded by construction: a status, an outcome); they are counted by the replica that folds the events
 * (the metrics leader), webhooks by the replica that sent them. The per-endpoint gauges carry an `endpoint`
 * label for at most METRICS_PROMETHEUS_ENDPOINTS endpoints plus `_other`.
 */
export const endpointPrometheus = {
  jobsFinished: new Counter({
    name: 'endpoint_jobs_finished_total',
    help: 'Jobs that finished, by final status (completed, failed, cancelled, timed_out)',
    labelNames: ['status'] as const,
    registers: [metricsRegistry],
  }),
  jobsRetried: new Counter({
    name: 'endpoint_jobs_retried_total',
    help: 'Jobs queued again by POST /retry',
    registers: [metricsRegistry],
  }),
  delaySeconds: new Histogram({
    name: 'endpoint_job_delay_seconds',
    help: 'Queued to taken by a worker, for jobs that ran',
    buckets: LATENCY_BUCKETS,
    registers: [metricsRegistry],
  }),
  executionSeconds: new Histogram({
    name: 'endpoint_job_execution_seconds',
    help: 'Taken to finished, for jobs that ran',
    buckets: LATENCY_BUCKETS,
    registers: [metricsRegistry],
  }),
  coldStarts: new Counter({
    name: 'endpoint_worker_cold_starts_total',
    help: 'Workers that asked for their first job',
    registers: [metricsRegistry],
  }),
  coldStartSeconds: new Histogram({
    name: 'endpoint_worker_cold_start_seconds',
    help: "A worker pod's registration to its first job request",
    buckets: LATENCY_BUCKETS,
    registers: [metricsRegistry],
  }),
  coldStartPhaseSeconds: new Histogram({
    name: 'endpoint_worker_cold_start_phase_seconds',
    help:
      "A worker start's phases (placement, runtime_start = image_pull + container_start, worker_ready), per " +
      'endpoint (bounded as endpoint_queue_depth)',
    labelNames: ['endpoint', 'phase'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [metricsRegistry],
  }),
  webhooks: new Counter({
    name: 'endpoint_webhook_attempts_total',
    help: 'Webhook delivery attempts, by outcome (delivered, failed, gave_up: a failed last attempt)',
    labelNames: ['outcome'] as const,
    registers: [metricsRegistry],
  }),
  queueDepth: new Gauge({
    name: 'endpoint_queue_depth',
    help: 'Queued jobs at the last sample, per endpoint (bounded: METRICS_PROMETHEUS_ENDPOINTS, then _other)',
    labelNames: ['endpoint'] as const,
    registers: [metricsRegistry],
  }),
  oldestJobAge: new Gauge({
    name: 'endpoint_oldest_job_age_seconds',
    help: 'Age of the oldest queued job at the last sample, per endpoint (_other: the oldest among the rest)',
    labelNames: ['endpoint'] as const,
    registers: [metricsRegistry],
  }),
  workers: new Gauge({
    name: 'endpoint_workers',
    help: 'Live workers by status at the last sample, per endpoint (bounded as endpoint_queue_depth)',
    labelNames: ['endpoint', 'status'] as const,
    registers: [metricsRegistry],
  }),
};

/** The `phase` label of each cold start phase. */
const PHASE_LABELS: Record<ColdStartPhase, string> = {
  placement: 'placement',
  runtimeStart: 'runtime_start',
  imagePull: 'image_pull',
  containerStart: 'container_start',
  workerReady: 'worker_ready',
};

/** The endpoints that have their own `endpoint` label at the last sample (the rest are `_other`). */
let labelled = new Set<string>();

/**
 * Sets the per-endpoint gauges from a sample: the `limit` busiest endpoints by name, the rest as `_other`. An
 * endpoint that is no longer among them loses its cold start phase series (its later starts count in `_other`), so
 * those stay bounded too.
 */
export function exportGauges(samples: GaugeSample[], limit: number): void {
  const { queueDepth, oldestJobAge, workers } = endpointPrometheus;
  queueDepth.reset();
  oldestJobAge.reset();
  workers.reset();
  const weight = (s: GaugeSample) =>
    s.queueDepth + s.workersRunning + s.workersIdle + s.workersInitializing + s.workersUnhealthy;
  const ranked = [...samples].sort((a, b) => weight(b) - weight(a) || (a.endpointId < b.endpointId ? -1 : 1));
  const ages = new Map<string, number>();
  ranked.forEach((s, i) => {
    const endpoint = i < limit ? s.endpointId : OTHER_ENDPOINTS;
    queueDepth.inc({ endpoint }, s.queueDepth);
    ages.set(endpoint, Math.max(ages.get(endpoint) ?? 0, s.oldestAgeMs / 1000));
    workers.inc({ endpoint, status: 'running' }, s.workersRunning);
    workers.inc({ endpoint, status: 'idle' }, s.workersIdle);
    workers.inc({ endpoint, status: 'initializing' }, s.workersInitializing);
    workers.inc({ endpoint, status: 'throttled' }, s.workersThrottled);
    workers.inc({ endpoint, status: 'unhealthy' }, s.workersUnhealthy);
  });
  for (const [endpoint, seconds] of ages) oldestJobAge.set({ endpoint }, seconds);
  const kept = new Set(ranked.slice(0, limit).map((s) => s.endpointId));
  for (const endpoint of labelled) {
    if (kept.has(endpoint)) continue;
    for (const phase of COLD_START_PHASES) {
      endpointPrometheus.coldStartPhaseSeconds.remove({ endpoint, phase: PHASE_LABELS[phase] });
    }
  }
  labelled = kept;
}

/** A cold start's phases, under its endpoint's label if it has one at the last sample, else `_other`. */
export function observeColdStartPhases(endpointId: string, phases: ColdStartPhaseTimes): void {
  const endpoint = labelled.has(endpointId) ? endpointId : OTHER_ENDPOINTS;
  for (const [phase, ms] of Object.entries(phases) as [ColdStartPhase, number][]) {
    endpointPrometheus.coldStartPhaseSeconds.observe({ endpoint, phase: PHASE_LABELS[phase] }, ms / 1000);
  }
}

/** Stops exporting per-endpoint gauges (a replica that no longer leads the metrics). */
export function clearGauges(): void {
  endpointPrometheus.queueDepth.reset();
  endpointPrometheus.oldestJobAge.reset();
  endpointPrometheus.workers.reset();
}
