import type { EndpointMetrics } from '@app/contracts';
import { TimeSeriesChart } from '../../charts/time-series-chart';
import { latencyChart } from '../../charts/latency-lines';
import { count, rateOf } from './metric-units';

/**
 * A load-balancing endpoint's charts (docs/adr/0026, "Request metrics"): its requests by status class as rates,
 * their latency (request → response end, as the gateways measured it), and its workers by status.
 */
export function LbMetricCharts({ m }: { m: EndpointMetrics }) {
  const times = m.series.t.map((t) => Date.parse(t) / 1000);
  const common = { times, stepSeconds: m.stepSeconds };
  const requests = rateOf(m.stepSeconds, 'requests');
  const r = m.series.lb.requests;
  const w = m.series.workers;
  const latency = latencyChart([{ of: m.series.lb.latency }]);
  return (
    <div className="charts">
      <TimeSeriesChart
        {...common}
        title="Requests"
        unit={requests.unit}
        lines={[
          { label: '2xx', values: r.status2xx.map(requests.per), fill: true },
          { label: '4xx', values: r.status4xx.map(requests.per), look: 'warn' },
          { label: '5xx', values: r.status5xx.map(requests.per), look: 'danger' },
          { label: 'Proxy errors', values: r.proxyErrors.map(requests.per), look: 'muted' },
        ]}
      />
      <TimeSeriesChart {...common} title="Request latency" {...latency} />
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
    </div>
  );
}
