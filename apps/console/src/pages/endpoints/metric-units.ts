import type { ChartUnit } from '../../charts/time-series-chart';

/** A whole count ("3 workers"). */
export const count = (one: string, many: string): ChartUnit => ({
  label: many,
  format: (n) => `${n} ${n === 1 ? one : many}`,
  integer: true,
});

/** A counter per step as a rate: per minute for minute steps, per hour for hour steps (what a step holds). */
export function rateOf(stepSeconds: number, what: string): { unit: ChartUnit; per: (n: number) => number } {
  const perMinute = stepSeconds <= 60;
  const label = `${what}/${perMinute ? 'min' : 'h'}`;
  const per = (n: number) => (perMinute ? (n * 60) / stepSeconds : (n * 3600) / stepSeconds);
  return {
    unit: { label, format: (v) => `${v.toLocaleString(undefined, { maximumFractionDigits: 2 })} ${label}` },
    per,
  };
}
