// Small statistics for the benchmark: nearest-rank percentiles of a round's samples, and the median/min/max of a
// metric over rounds.

/** Nearest-rank percentile (p in 0..100) of unsorted samples; NaN for none. */
export function percentile(samples, p) {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

/** Median (the mean of the two middle values for an even count); NaN for none. */
export function median(values) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** `{ median, min, max, rounds }` of per-round values. */
export function spread(values) {
  return {
    median: median(values),
    min: values.length ? Math.min(...values) : NaN,
    max: values.length ? Math.max(...values) : NaN,
    rounds: values.length,
  };
}

/** p50 and p99 (ms) of one round's latency samples. */
export function latencySummary(samples) {
  return { p50: percentile(samples, 50), p99: percentile(samples, 99) };
}

/** Rounds a number to a few significant digits for JSON and tables (keeps integers above 1000 whole). */
export function tidy(value) {
  if (!Number.isFinite(value)) return value;
  const magnitude = Math.abs(value);
  if (magnitude >= 1000) return Math.round(value);
  if (magnitude >= 100) return Math.round(value * 10) / 10;
  if (magnitude >= 1) return Math.round(value * 100) / 100;
  return Math.round(value * 1000) / 1000;
}
