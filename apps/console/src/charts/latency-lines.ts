import type { LatencySeries } from '@app/contracts';
import { durationUnit, peak, type ChartUnit } from './chart-data';
import type { ChartLine } from './time-series-chart';

/**
 * Latency lines for a chart: the p50 and p99 of each series (ms, null in a step without samples), in ms, or in s
 * when the largest is ten seconds or more. A series' label names it ("Placement p50"); without one, "p50".
 */
export function latencyChart(
  series: { label?: string; of: LatencySeries }[],
  quantiles: ('p50' | 'p99')[] = ['p50', 'p99'],
): { lines: ChartLine[]; unit: ChartUnit } {
  const raw = series.flatMap(({ label, of }) =>
    quantiles.map((q) => ({ label: label ? `${label} ${q}` : q, values: of[q] })),
  );
  const { unit, scale } = durationUnit(Math.max(0, ...raw.map((l) => peak(l.values))));
  return { unit, lines: raw.map((l) => ({ label: l.label, values: l.values.map(scale) })) };
}
