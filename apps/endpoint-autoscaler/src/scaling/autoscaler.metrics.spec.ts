import { describe, expect, it } from '@jest/globals';
import {
  autoscalerMetrics,
  exportScaler,
  exportWaitReason,
  forgetEndpointSeries,
} from './autoscaler.metrics.js';

/** The series the monitoring alerts read (deploy/components/monitoring): one per endpoint, replaced on a change. */
async function series(
  metric: { get(): Promise<{ values: { labels: object; value: number }[] }> },
  endpoint: string,
) {
  return (await metric.get()).values
    .filter((v) => (v.labels as { endpoint?: string }).endpoint === endpoint)
    .map((v) => ({ ...v.labels, value: v.value }));
}

describe('autoscaler per-endpoint series', () => {
  it("exports the endpoint's scaler value under its type, and only the current type", async () => {
    exportScaler('ep-scaler', 'QUEUE_DELAY', 30);
    expect(await series(autoscalerMetrics.scalerValue, 'ep-scaler')).toEqual([
      { endpoint: 'ep-scaler', scaler_type: 'QUEUE_DELAY', value: 30 },
    ]);
    exportScaler('ep-scaler', 'REQUEST_COUNT', 4);
    expect(await series(autoscalerMetrics.scalerValue, 'ep-scaler')).toEqual([
      { endpoint: 'ep-scaler', scaler_type: 'REQUEST_COUNT', value: 4 },
    ]);
  });

  it('exports the wait reason as one series that moves with the reason and goes with it', async () => {
    exportWaitReason('ep-wait', 'WORKER_STARTING');
    exportWaitReason('ep-wait', 'WORKERS_CRASH_LOOPING');
    expect(await series(autoscalerMetrics.waitReason, 'ep-wait')).toEqual([
      { endpoint: 'ep-wait', reason: 'WORKERS_CRASH_LOOPING', value: 1 },
    ]);
    exportWaitReason('ep-wait', null);
    expect(await series(autoscalerMetrics.waitReason, 'ep-wait')).toEqual([]);
  });

  it("forgets every series of a deleted endpoint and leaves the others' alone", async () => {
    for (const endpoint of ['ep-gone', 'ep-kept']) {
      exportScaler(endpoint, 'QUEUE_DELAY', 10);
      exportWaitReason(endpoint, 'SPEND_LIMIT_REACHED');
      autoscalerMetrics.desiredWorkers.set({ endpoint }, 2);
    }
    forgetEndpointSeries('ep-gone');
    for (const metric of [
      autoscalerMetrics.scalerValue,
      autoscalerMetrics.waitReason,
      autoscalerMetrics.desiredWorkers,
    ]) {
      expect(await series(metric, 'ep-gone')).toEqual([]);
      expect(await series(metric, 'ep-kept')).toHaveLength(1);
    }
  });
});
