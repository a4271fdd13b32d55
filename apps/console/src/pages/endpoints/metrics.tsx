import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { EndpointMetrics, EndpointV2Type, MetricsWindow } from '@app/contracts';
import { api } from '../../api';
import { ErrorBox, Loading, Section } from '../../ui';
import { SelectInput } from '../../controls';
import { TimeSeriesChart, durationUnit, type ChartUnit } from '../../charts/time-series-chart';
import { peak } from '../../charts/chart-data';
import { latencyChart } from '../../charts/latency-lines';
import { ColdStartPhases } from './cold-start-phases';

/** The windows GET /v2/serverless/{id}/metrics serves (METRICS_WINDOWS: minute steps up to 1h, then hours). */
const WINDOWS: { id: MetricsWindow; label: string }[] = [
  { id: '5m', label: '5m' },
  { id: '1h', label: '1h' },
  { id: '24h', label: '24h' },
  { id: '7d', label: '7d' },
];

const count = (one: string, many: string): ChartUnit => ({
  label: many,
  format: (n) => `${n} ${n === 1 ? one : many}`,
  integer: true,
});

/** A counter per step as a rate: per minute for minute steps, per hour for hour steps (what a step holds). */
function rateOf(stepSeconds: number, what: string): { unit: ChartUnit; per: (n: number) => number } {
  const perMinute = stepSeconds <= 60;
  const label = `${what}/${perMinute ? 'min' : 'h'}`;
  const per = (n: number) => (perMinute ? (n * 60) / stepSeconds : (n * 3600) / stepSeconds);
  return {
    unit: { label, format: (v) => `${v.toLocaleString(undefined, { maximumFractionDigits: 2 })} ${label}` },
    per,
  };
}

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
 * (charts/time-series-chart.tsx). Queue endpoints only: the metrics API counts the queue broker's jobs, workers
 * and cold starts, and a load-balancing endpoint has none of them (its workers are not the broker's, ADR 26), so
 * every figure would read 0; its request figures are not in that API.
 */
export function Metrics({ id, type = 'QUEUE' }: { id: string; type?: EndpointV2Type }) {
  return type === 'LOAD_BALANCER' ? null : <QueueMetrics id={id} />;
}

function QueueMetrics({ id }: { id: string }) {
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
      ) : (
        <>
          <MetricCharts m={m} />
          <ColdStartPhases metrics={m} />
        </>
      )}
    </Section>
  );
}
