import { DomainError } from '../errors/domain-error.js';
import { ErrorCode } from '../errors/error-code.js';
import type { UsageBucket } from './usage.contracts.js';

/** One stretch of accrual at a fixed rate: `units` (GPUs, GB) held from `startedAt` until `endedAt` (null: still). */
export interface UsageInterval {
  /** What the usage is reported under (a pod, cluster, endpoint or volume id). */
  key: string;
  startedAt: Date;
  endedAt: Date | null;
  /** Cost per hour of the whole interval (already × units). */
  ratePerHr: number;
  units: number;
}

/** What one key accrued in one bucket. */
export interface AccruedUsage {
  bucket: string;
  key: string;
  seconds: number;
  /** seconds × units (GPU-seconds, GB-seconds). */
  unitSeconds: number;
  cost: number;
}

const BUCKET_MS: Record<UsageBucket, number> = { hour: 3_600_000, day: 86_400_000 };

/** The UTC hour or day `time` falls in. */
export function bucketStart(time: number, bucket: UsageBucket): number {
  return time - (time % BUCKET_MS[bucket]);
}

/** Money to six decimals, as reported. */
export function roundMoney(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

/**
 * Accrual of `intervals` within `[from, to)`, cut at bucket boundaries and summed per bucket and key, to the
 * millisecond: seconds × rate / 3600. An open interval accrues until `now` (or `to`, if earlier). Records come in
 * bucket order, then by key; costs are rounded to six decimals after summing.
 */
export function accrue(
  intervals: readonly UsageInterval[],
  range: { from: Date; to: Date; now: Date },
  bucket: UsageBucket,
): AccruedUsage[] {
  const sums = new Map<string, AccruedUsage>();
  const rangeEnd = Math.min(range.to.getTime(), range.now.getTime());
  for (const interval of intervals) {
    let start = Math.max(interval.startedAt.getTime(), range.from.getTime());
    const end = Math.min(interval.endedAt?.getTime() ?? rangeEnd, rangeEnd);
    while (start < end) {
      const bucketAt = bucketStart(start, bucket);
      const sliceEnd = Math.min(end, bucketAt + BUCKET_MS[bucket]);
      const seconds = (sliceEnd - start) / 1000;
      const id = `${bucketAt}\u0000${interval.key}`;
      const sum = sums.get(id) ?? {
        bucket: new Date(bucketAt).toISOString(),
        key: interval.key,
        seconds: 0,
        unitSeconds: 0,
        cost: 0,
      };
      sum.seconds += seconds;
      sum.unitSeconds += seconds * interval.units;
      sum.cost += (seconds * interval.ratePerHr) / 3600;
      sums.set(id, sum);
      start = sliceEnd;
    }
  }
  return [...sums.values()]
    .map((sum) => ({ ...sum, cost: roundMoney(sum.cost) }))
    .sort((a, b) => a.bucket.localeCompare(b.bucket) || a.key.localeCompare(b.key));
}

/** Most buckets one query may span (a year of days, ~two months of hours). */
export const MAX_USAGE_BUCKETS = 1500;

/** The range of a usage query, checked: `from` before `to`, at most MAX_USAGE_BUCKETS buckets (422 otherwise). */
export function usageRange(query: { from: string; to: string; bucket: UsageBucket }): {
  from: Date;
  to: Date;
} {
  const from = new Date(query.from);
  const to = new Date(query.to);
  const problem = !(from.getTime() < to.getTime())
    ? 'startTime must be before endTime'
    : (to.getTime() - bucketStart(from.getTime(), query.bucket)) / BUCKET_MS[query.bucket] > MAX_USAGE_BUCKETS
      ? `the range must not span more than ${MAX_USAGE_BUCKETS} ${query.bucket} buckets`
      : null;
  if (problem) throw new DomainError(ErrorCode.ValidationFailed, 'the request failed validation', [problem]);
  return { from, to };
}
