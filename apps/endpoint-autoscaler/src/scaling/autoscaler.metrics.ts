import { Counter, Gauge, Histogram } from 'prom-client';
import { metricsRegistry } from '@app/observability';

export const autoscalerMetrics = {
  decisions: new Counter({
    name: 'autoscaler_decisions_total',
    help: 'Worker changes decided by the autoscaler, by action (create, resume, stop, terminate, failed)',
    labelNames: ['action'] as const,
    registers: [metricsRegistry],
  }),
  refusals: new Counter({
    name: 'autoscaler_worker_refusals_total',
    help:
      'Worker creates and resumes refused, per endpoint and error code (QUOTA_EXCEEDED, SPEND_LIMIT_REACHED, ' +
      'CAPACITY_UNAVAILABLE, ...): why an endpoint waits for workers',
    labelNames: ['endpoint', 'code'] as const,
    registers: [metricsRegistry],
  }),
  desiredWorkers: new Gauge({
    name: 'autoscaler_desired_workers',
    help: 'Workers the scaler wants, per endpoint',
    labelNames: ['endpoint'] as const,
    registers: [metricsRegistry],
  }),
  currentWorkers: new Gauge({
    name: 'autoscaler_current_workers',
    help: 'Workers up or coming up, per endpoint',
    labelNames: ['endpoint'] as const,
    registers: [metricsRegistry],
  }),
  tickSeconds: new Histogram({
    name: 'autoscaler_tick_seconds',
    help: 'Time of one control-loop pass over every endpoint',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [metricsRegistry],
  }),
  tickErrors: new Counter({
    name: 'autoscaler_tick_errors_total',
    help: 'Endpoints whose reconciliation failed on a tick (retried on the next)',
    registers: [metricsRegistry],
  }),
};
