import { Counter, Gauge, Histogram } from 'prom-client';
import { metricsRegistry } from '@app/observability';
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

/** Sets the per-endpoint gauges from a sample: the `limit` busiest endpoints by name, the rest as `_other`. */
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
}

/** Stops exporting per-endpoint gauges (a replica that no longer leads the metrics). */
export function clearGauges(): void {
  endpointPrometheus.queueDepth.reset();
  endpointPrometheus.oldestJobAge.reset();
  endpointPrometheus.workers.reset();
}
