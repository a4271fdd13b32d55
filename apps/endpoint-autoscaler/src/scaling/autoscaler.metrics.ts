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
  scalerValue: new Gauge({
    name: 'autoscaler_endpoint_scaler_value',
    help:
      "A queue endpoint's scaler value, by scaler type (QUEUE_DELAY: the seconds a job may wait; REQUEST_COUNT: " +
      'queued jobs per worker); set by the control-loop leader',
    labelNames: ['endpoint', 'scaler_type'] as const,
    registers: [metricsRegistry],
  }),
  waitReason: new Gauge({
    name: 'autoscaler_endpoint_wait_reason',
    help:
      "1 for the reason a queue endpoint's jobs wait (WORKERS_CRASH_LOOPING, SPEND_LIMIT_REACHED, ...), no series " +
      'while nothing holds them; set by the control-loop leader',
    labelNames: ['endpoint', 'reason'] as const,
    registers: [metricsRegistry],
  }),
  tickErrors: new Counter({
    name: 'autoscaler_tick_errors_total',
    help: 'Endpoints whose reconciliation failed on a tick (retried on the next)',
    registers: [metricsRegistry],
  }),
};

/** The series each endpoint has now, so a change or a forget removes exactly the old ones. */
const scalerSeries = new Map<string, string>();
const reasonSeries = new Map<string, string>();

/** An endpoint's scaler as the alerts compare it (queue delay over the endpoint's own QUEUE_DELAY value). */
export function exportScaler(endpointId: string, scalerType: string, scalerValue: number): void {
  const previous = scalerSeries.get(endpointId);
  if (previous !== undefined && previous !== scalerType) {
    autoscalerMetrics.scalerValue.remove({ endpoint: endpointId, scaler_type: previous });
  }
  scalerSeries.set(endpointId, scalerType);
  autoscalerMetrics.scalerValue.set({ endpoint: endpointId, scaler_type: scalerType }, scalerValue);
}

/** The endpoint's wait reason as a series of its own (`reason` null: none, the series goes). */
export function exportWaitReason(endpointId: string, reason: string | null): void {
  const previous = reasonSeries.get(endpointId);
  if (previous !== undefined && previous !== reason) {
    autoscalerMetrics.waitReason.remove({ endpoint: endpointId, reason: previous });
    reasonSeries.delete(endpointId);
  }
  if (reason === null) return;
  reasonSeries.set(endpointId, reason);
  autoscalerMetrics.waitReason.set({ endpoint: endpointId, reason }, 1);
}

/** Forgets every per-endpoint series of an endpoint that is gone. */
export function forgetEndpointSeries(endpointId: string): void {
  autoscalerMetrics.desiredWorkers.remove({ endpoint: endpointId });
  autoscalerMetrics.currentWorkers.remove({ endpoint: endpointId });
  exportWaitReason(endpointId, null);
  const scaler = scalerSeries.get(endpointId);
  if (scaler !== undefined) {
    autoscalerMetrics.scalerValue.remove({ endpoint: endpointId, scaler_type: scaler });
  }
  scalerSeries.delete(endpointId);
}
