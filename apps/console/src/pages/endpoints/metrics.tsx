import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { EndpointMetrics, EndpointV2Type, MetricsWindow } from '@app/contracts';
import { api } from '../../api';
import { ErrorBox, Loading, Section } from '../../ui';
import { SelectInput } from '../../controls';
import { TimeSeriesChart, durationUnit } from '../../charts/time-series-chart';
import { peak } from '../../charts/chart-data';
import { latencyChart } from '../../charts/latency-lines';
import { ColdStartPhases } from './cold-start-phases';
import { LbMetricCharts } from './lb-metric-charts';
import { count, rateOf } from './metric-units';

/** The windows GET /v2/serverless/{id}/metrics serves (METRICS_WINDOWS: minute steps up to 1h, then hours). */
const WINDOWS: { id: MetricsWindow; label: string }[] = [
  { id: '5m', label: '5m' },
  { id: '1h', label: '1h' },
  { id: '24h', label: '24h' },
  { id: '7d', label: '7d' },
];

/** The charts of a window: gauges as stepped lines of their peak, counters as rates, latencies in ms or s. */
function MetricCharts({ m }: { m: EndpointMetrics }) {
  const times = m.series.t.map((t) => Date.parse(t) / 1000);
  const step = m.stepSeconds;
  const common = { times, stepSeconds: step };
  const w = m.series.workers;
  const jobs = rateOf(step, 'jobs');
  const j = m.series.jobs;
  const delay = latencyChart([{ of: m.series.delayTime }]);
  const execution = latencyChart([{ of: m.series.executionTime }]);
  const age = durationUnit(peak(m.series.queue.oldestJobAgeMs));
  return (
    <div className="charts">
      <TimeSeriesChart
        {...common}
        title="Jobs finished"
        unit={jobs.unit}
        lines={[
          { label: 'Completed', values: j.completed.map(jobs.per), fill: true },
          { label: 'Failed', values: j.failed.map(jobs.per), look: 'danger' },
          { label: 'Timed out', values: j.timedOut.map(jobs.per), look: 'warn' },
          { label: 'Cancelled', values: j.cancelled.map(jobs.per), look: 'muted' },
        ]}
      />
      <TimeSeriesChart
        {...common}
        title="Workers"
        shape="step"
        unit={count('worker', 'workers')}
        lines={[
          { label: 'Running', values: w.running, fill: true },
          { label: 'Idle', values: w.idle },
          { label: 'Initializing', values: w.initializing },
          { label: 'Unhealthy', values: w.unhealthy, look: 'danger' },
        ]}
      />
      <TimeSeriesChart
        {...common}
        title="Queue depth"
        shape="step"
        unit={count('job', 'jobs')}
        lines={[{ label: 'Queued', values: m.series.queue.depth, fill: true }]}
      />
      <TimeSeriesChart
        {...common}
        title="Oldest queued job"
        shape="step"
        unit={age.unit}
        lines={[{ label: 'Age', values: m.series.queue.oldestJobAgeMs.map(age.scale) }]}
      />
      <TimeSeriesChart {...common} title="Delay time" {...delay} />
      <TimeSeriesChart {...common} title="Execution time" {...execution} />
    </div>
  );
}

/**
 * An endpoint's metrics over the chosen window (docs/adr/0022-endpoint-metrics.md), as charts with a time axis
 * (charts/time-series-chart.tsx): a queue endpoint's jobs, queue, workers and cold starts; a load-balancing
 * endpoint's requests, their latency and its workers (ADR 26: it has no jobs nor queue).
 */
export function Metrics({ id, type = 'QUEUE' }: { id: string; type?: EndpointV2Type }) {
  const [window, setWindow] = useState<MetricsWindow>('1h');
  const metrics = useQuery({
    queryKey: ['endpoint', id, 'metrics', window],
    queryFn: () => api<EndpointMetrics>(`/v2/serverless/${id}/metrics?window=${window}`),
    refetchInterval: 15_000,
  });
  const m = metrics.data;
  return (
    <Section
      title="Metrics"
      actions={<SelectInput label="Window" value={window} onChange={setWindow} options={WINDOWS} />}
    >
      <ErrorBox error={metrics.error} />
      {!m ? (
        <Loading what="metrics" />
      ) : type === 'LOAD_BALANCER' ? (
        <LbMetricCharts m={m} />
      ) : (
        <>
          <MetricCharts m={m} />
          <ColdStartPhases metrics={m} />
        </>
      )}
    </Section>
  );
}
