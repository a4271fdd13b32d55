import type { QuotaSample } from '@app/contracts';
import { TimeSeriesChart, type ChartLine } from '../../charts/time-series-chart';
import { peak, time } from '../../charts/chart-data';

/** The lines of the chart: what each shows and its look, so colour is not the only cue. */
const LINES: { key: 'gpus' | 'inUse' | 'borrowed' | 'lent'; label: string; look: ChartLine['look'] }[] = [
  { key: 'gpus', label: 'Quota', look: 'muted' },
  { key: 'inUse', label: 'In use', look: 'accent' },
  { key: 'borrowed', label: 'Borrowed', look: 'warn' },
  { key: 'lent', label: 'Lent', look: 'ok' },
];

const gpus = (n: number) => `${n} GPU${n === 1 ? '' : 's'}`;

/**
 * Use and borrowing of one limit over time, one sample a minute (the shared time-series chart:
 * docs/adr/0038-console-charts.md), a stepped line per measure.
 */
export function QuotaChart({ title, samples }: { title: string; samples: QuotaSample[] }) {
  const lines: ChartLine[] = LINES.map((line) => ({
    label: line.label,
    look: line.look,
    fill: line.key === 'inUse',
    values: samples.map((s) => s[line.key]),
  }));
  const times = samples.map((s) => Date.parse(s.at) / 1000);
  const [, inUse, borrowed, lent] = lines.map((l) => peak(l.values));
  return (
    <TimeSeriesChart
      className="quota-chart"
      title={title}
      times={times}
      lines={lines}
      unit={{ label: 'GPUs', format: gpus, integer: true }}
      stepSeconds={60}
      shape="step"
      summary={
        samples.length === 0
          ? undefined
          : `peak ${gpus(inUse)} in use, ${gpus(borrowed)} borrowed, ${gpus(lent)} lent, ` +
            `from ${time(times[0])} to ${time(times[times.length - 1])}`
      }
    />
  );
}
