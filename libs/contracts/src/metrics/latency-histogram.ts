/**
 * Fixed-bucket latency histograms (docs/adr/0022-endpoint-metrics.md). Bucket 0 holds 0–1 ms; bucket i ≥ 1 holds
 * (2^((i-1)/4), 2^(i/4)] ms: four buckets per doubling, so a bucket is 19 % wide and a percentile read from the
 * counts is within 19 % of the exact one. A histogram is a dense array of counts, trimmed after its last non-zero
 * bucket (most latencies are seconds, bucket ≤ 60); the last bucket (index 120, 2^30 ms ≈ 12 days) takes anything
 * longer. Pure functions shared by the broker (writes and reads) and tests.
 */
export const HISTOGRAM_BUCKETS_PER_DOUBLING = 4;
export const HISTOGRAM_MAX_BUCKET = 30 * HISTOGRAM_BUCKETS_PER_DOUBLING;

/** The bucket a latency of `ms` falls in. */
export function bucketOf(ms: number): number {
  if (!(ms > 1)) return 0;
  const index = Math.ceil(HISTOGRAM_BUCKETS_PER_DOUBLING * Math.log2(ms) - 1e-9);
  return Math.min(HISTOGRAM_MAX_BUCKET, Math.max(1, index));
}

/** Upper bound (ms) of bucket `i`. */
export function bucketUpperMs(i: number): number {
  return 2 ** (i / HISTOGRAM_BUCKETS_PER_DOUBLING);
}

/** Lower bound (ms, exclusive) of bucket `i`; 0 for bucket 0. */
export function bucketLowerMs(i: number): number {
  return i === 0 ? 0 : bucketUpperMs(i - 1);
}

/** Adds one latency to `hist` in place. */
export function observe(hist: number[], ms: number): number[] {
  const i = bucketOf(ms);
  while (hist.length <= i) hist.push(0);
  hist[i] += 1;
  return hist;
}

/** Sums histograms bucket by bucket (into a new array). */
export function mergeHistograms(histograms: readonly (readonly number[] | null | undefined)[]): number[] {
  const out: number[] = [];
  for (const hist of histograms) {
    if (!hist) continue;
    for (let i = 0; i < hist.length; i++) {
      while (out.length <= i) out.push(0);
      out[i] += Number(hist[i]) || 0;
    }
  }
  return out;
}

export function histogramCount(hist: readonly number[]): number {
  let total = 0;
  for (let i = 0; i < hist.length; i++) total += hist[i];
  return total;
}

/**
 * The q-quantile (0 < q ≤ 1) estimated from the counts: the bucket holding the nearest-rank sample (rank
 * ⌈q·n⌉), interpolated linearly inside it by rank (as Prometheus' histogram_quantile does); null for no samples.
 * The exact nearest-rank value lies in the same bucket, so the two differ by at most one bucket's width.
 */
export function histogramQuantile(hist: readonly number[], q: number): number | null {
  return quantilesOf(hist, histogramCount(hist), [q])[0];
}

/** The q-quantiles of `qs` (ascending) in one walk over the counts, as histogramQuantile estimates each. */
function quantilesOf(hist: readonly number[], total: number, qs: readonly number[]): (number | null)[] {
  if (total === 0) return qs.map(() => null);
  const out: (number | null)[] = [];
  let seen = 0;
  let i = 0;
  for (const q of qs) {
    const rank = Math.max(1, Math.ceil(q * total));
    while (i < hist.length && seen + hist[i] < rank) seen += hist[i++];
    if (i === hist.length) {
      out.push(bucketUpperMs(hist.length - 1));
      continue;
    }
    const n = hist[i];
    const lower = bucketLowerMs(i);
    const upper = bucketUpperMs(i);
    out.push(Math.round((lower + ((upper - lower) * (rank - seen)) / n) * 10) / 10);
  }
  return out;
}

/** p50, p90, p99 and the sample count of a histogram (ms; null without samples). */
export interface LatencySummary {
  count: number;
  p50: number | null;
  p90: number | null;
  p99: number | null;
}

export function summarize(hist: readonly number[]): LatencySummary {
  const count = histogramCount(hist);
  const [p50, p90, p99] = quantilesOf(hist, count, [0.5, 0.9, 0.99]);
  return { count, p50, p90, p99 };
}
