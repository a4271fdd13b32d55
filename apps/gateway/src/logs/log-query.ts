import { DomainError, ErrorCode } from '@app/contracts';
import type { LogRange } from './pod-log-reader.js';

/** `?tail=`: at most this many lines; also the most a page without `tail` holds (its last lines). */
export const MAX_TAIL = 10_000;

/** The query of the logs routes, as it arrived. */
export interface LogQuery {
  tail?: unknown;
  since?: unknown;
  follow?: unknown;
}

/**
 * `tail` (0 to 10000), `since` (an RFC 3339 time, or a number of seconds back from now like `kubectl logs
 * --since`) and `follow` (`true` or `1`). Every mistake is reported at once, as a 422 with one entry each.
 */
export function logRange(query: LogQuery, now = new Date()): LogRange {
  const errors: string[] = [];
  for (const name of ['tail', 'since', 'follow'] as const) {
    if (Array.isArray(query[name])) errors.push(`${name} must be given at most once`);
  }
  const tail = text(query.tail);
  const since = text(query.since);
  const range: LogRange = { follow: /^(true|1)$/i.test(text(query.follow) ?? '') };
  if (tail !== undefined) {
    if (/^\d{1,6}$/.test(tail) && Number(tail) <= MAX_TAIL) range.tail = Number(tail);
    else errors.push(`tail must be an integer from 0 to ${MAX_TAIL}; got ${JSON.stringify(tail)}`);
  }
  if (since !== undefined) {
    const at = /^\d{1,10}$/.test(since) ? new Date(now.getTime() - Number(since) * 1000) : rfc3339(since);
    if (at) range.since = at;
    else errors.push(`since must be an RFC 3339 time or a number of seconds; got ${JSON.stringify(since)}`);
  }
  if (errors.length) {
    throw new DomainError(ErrorCode.ValidationFailed, 'the request failed validation', errors);
  }
  return range;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function rfc3339(value: string): Date | null {
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/i.test(value)) return null;
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? null : at;
}
