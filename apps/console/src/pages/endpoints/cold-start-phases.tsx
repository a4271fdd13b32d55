import type { ColdStartPhase, EndpointMetrics } from '@app/contracts';
import { TimeSeriesChart } from '../../charts/time-series-chart';
import { latencyChart } from '../../charts/latency-lines';

const PHASE_NAMES: Record<ColdStartPhase, string> = {
  placement: 'Placement (decided → placed on a host)',
  runtimeStart: 'Runtime start (placed → running)',
  imagePull: '· image pull (placed → starting)',
  containerStart: '· container start (starting → running)',
  workerReady: 'Worker ready (running → first job request)',
};

/** In the order of COLD_START_PHASES (a type import only: the console bundles no contracts code). */
const PHASES = Object.keys(PHASE_NAMES) as ColdStartPhase[];

function ms(value: number | null): string {
  if (value === null) return '—';
  return value >= 10_000 ? `${(value / 1000).toFixed(1)} s` : `${Math.round(value)} ms`;
}

/** The cold starts over time, one chart per quantile: the whole start and its three top-level phases. */
function PhaseCharts({ metrics }: { metrics: EndpointMetrics }) {
  const s = metrics.series;
  const series = [
    { label: 'Cold start', of: s.coldStartTime },
    { label: 'Placement', of: s.coldStartPhases.placement },
    { label: 'Runtime start', of: s.coldStartPhases.runtimeStart },
    { label: 'Worker ready', of: s.coldStartPhases.workerReady },
  ];
  const common = { times: s.t.map((t) => Date.parse(t) / 1000), stepSeconds: metrics.stepSeconds };
  return (
    <div className="charts">
      <TimeSeriesChart {...common} title="Cold start p50, by phase" {...latencyChart(series, ['p50'])} />
      <TimeSeriesChart {...common} title="Cold start p99, by phase" {...latencyChart(series, ['p99'])} />
    </div>
  );
}

/** The window's cold starts: their phases over time, then per phase how many starts recorded it, p50 and p99. */
export function ColdStartPhases({ metrics }: { metrics: EndpointMetrics }) {
  const phases = metrics.totals.coldStartPhases;
  return (
    <>
      <PhaseCharts metrics={metrics} />
      <table aria-label="Cold start phases">
        <caption>
          Cold starts in the window: {metrics.totals.coldStarts}, registration to first job request p50{' '}
          {ms(metrics.totals.coldStartTime.p50)}, p99 {ms(metrics.totals.coldStartTime.p99)}
        </caption>
        <thead>
          <tr>
            <th scope="col">Phase</th>
            <th scope="col">Starts</th>
            <th scope="col">p50</th>
            <th scope="col">p99</th>
          </tr>
        </thead>
        <tbody>
          {PHASES.map((phase) => (
            <tr key={phase}>
              <th scope="row">{PHASE_NAMES[phase]}</th>
              <td>{phases[phase].count}</td>
              <td>{ms(phases[phase].p50)}</td>
              <td>{ms(phases[phase].p99)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
