/** Pure helpers of the time-series chart: times, peaks, the table's rows and the units of the y axis. */

/** A value of a step; null where the step has no sample (a latency of a step without jobs). */
export type Point = number | null;

/** How the y axis and the read-outs say a value: the axis label (the unit) and the text of one value. */
export interface ChartUnit {
  /** The y axis' label and the table's "in …": `GPUs`, `jobs/min`, `ms`, `USD`. */
  label: string;
  /** A value with its unit, for the tooltip and the caption: `2 GPUs`, `1.5 jobs/min`, `$0.12`. */
  format: (value: number) => string;
  /** Whole numbers only (counts of things): no fractional ticks. */
  integer?: boolean;
}

export const time = (seconds: number) =>
  new Date(seconds * 1000).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' });

/** The largest value of a line, 0 when it has none. */
export function peak(values: Point[]): number {
  return values.reduce<number>((max, v) => (v !== null && v > max ? v : max), 0);
}

/** A number for the table: up to three significant decimals, no unit (the table's caption names it). */
export function plain(value: Point): string {
  if (value === null) return '—';
  return value.toLocaleString(undefined, { maximumFractionDigits: Math.abs(value) < 1 ? 4 : 2 });
}

/**
 * The table's rows: every step, or (past `maxRows`) each span's peak of at most `maxRows` spans, timed at the
 * span's first step. `span` is how many steps a row holds (1 when none are merged).
 */
export function tableRows(
  times: number[],
  lines: Point[][],
  maxRows: number,
): { span: number; rows: { t: number; values: Point[] }[] } {
  const span = Math.max(1, Math.ceil(times.length / maxRows));
  const rows: { t: number; values: Point[] }[] = [];
  for (let i = 0; i < times.length; i += span) {
    rows.push({
      t: times[i],
      values: lines.map((line) => {
        const part = line.slice(i, i + span).filter((v): v is number => v !== null);
        return part.length === 0 ? null : Math.max(...part);
      }),
    });
  }
  return { span, rows };
}

/** Time-axis tick steps (s), from a minute to a week; a chart drops those finer than its data's step. */
export const TIME_INCRS = [60, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800, 604800];
/** y-axis tick steps for counts: no tick between whole things. */
export const INTEGER_INCRS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 100000];

/** A duration unit fitted to the largest value (ms): ms under ten seconds, else seconds, for a line of ms. */
export function durationUnit(maxMs: number): { unit: ChartUnit; scale: (ms: Point) => Point } {
  if (maxMs < 10_000) {
    return { unit: { label: 'ms', format: (v) => `${Math.round(v)} ms` }, scale: (ms) => ms };
  }
  return {
    unit: { label: 's', format: (v) => `${v.toFixed(1)} s` },
    scale: (ms) => (ms === null ? null : ms / 1000),
  };
}

/** The indices of values with no value beside them: a line cannot join them, so the chart marks them as points. */
export function isolated(values: Point[]): number[] {
  return values.flatMap((v, i) =>
    v !== null && (values[i - 1] ?? null) === null && (values[i + 1] ?? null) === null ? [i] : [],
  );
}

/**
 * The data as uPlot takes it: times, then one array per line. A stepped line holds each value over its step, so
 * the last step gets an end point (its value again) that lets the line cover it.
 */
export function plotData(
  times: number[],
  lines: Point[][],
  stepSeconds: number,
  stepped: boolean,
): Point[][] {
  if (!stepped || times.length === 0) return [times, ...lines];
  return [
    [...times, times[times.length - 1] + stepSeconds],
    ...lines.map((l) => [...l, l[l.length - 1] ?? null]),
  ];
}

/** Tick labels with as many decimals as the tick step has (0.0005 → 4), so no two ticks read the same. */
export function tickLabels(splits: number[], incr: number): string[] {
  const decimals = (String(Number(incr.toPrecision(6))).split('.')[1] ?? '').length;
  return splits.map((v) => v.toFixed(Math.min(decimals, 6)));
}
