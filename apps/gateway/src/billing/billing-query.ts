import { DomainError, ErrorCode, USAGE_BUCKETS, type UsageBucket } from '@app/contracts';

/** The query string every billing route takes (RunPod's names). */
export interface BillingQueryParams {
  startTime?: string;
  endTime?: string;
  bucketSize?: string;
}

/** A billing range, resolved: ISO times and the bucket. */
export interface BillingRange {
  from: string;
  to: string;
  bucket: UsageBucket;
}

const DEFAULT_DAYS = 30;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

function invalid(error: string): DomainError {
  return new DomainError(ErrorCode.ValidationFailed, 'the request failed validation', [error]);
}

function time(name: string, value: string | undefined, fallback: Date): Date {
  if (value === undefined || value === '') return fallback;
  const parsed = new Date(value);
  if (!ISO.test(value) || Number.isNaN(parsed.getTime())) {
    throw invalid(`${name} must be an RFC 3339 time such as 2026-01-01T00:00:00Z`);
  }
  return parsed;
}

/**
 * `startTime` (default: 30 days before `endTime`), `endTime` (exclusive, default now) and `bucketSize` (`hour`
 * or `day`, default `day`). The owners check the range itself (start before end, not too many buckets).
 */
export function billingRange(params: BillingQueryParams, now: Date): BillingRange {
  const bucket = params.bucketSize ?? 'day';
  if (!(USAGE_BUCKETS as readonly string[]).includes(bucket)) {
    throw invalid(`bucketSize must be one of ${USAGE_BUCKETS.join(', ')}`);
  }
  const to = time('endTime', params.endTime, now);
  const from = time('startTime', params.startTime, new Date(to.getTime() - DEFAULT_DAYS * 86_400_000));
  return { from: from.toISOString(), to: to.toISOString(), bucket: bucket as UsageBucket };
}
