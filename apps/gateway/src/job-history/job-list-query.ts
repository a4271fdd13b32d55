import {
  DomainError,
  ErrorCode,
  JOB_LIST_MAX_LIMIT,
  JOB_STATUSES,
  type JobListCursor,
  type JobStatus,
  type ListEndpointJobsQuery,
} from '@app/contracts';

/** Rows of a page when `limit` is not given. */
export const DEFAULT_JOB_LIMIT = 20;

/** The query of GET /v2/serverless/{id}/jobs, as it arrived. */
export interface JobListParams {
  status?: unknown;
  from?: unknown;
  to?: unknown;
  cursor?: unknown;
  limit?: unknown;
}

const ISO_TIME = /^\d{4}-\d\d-\d\d(T\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d))?$/i;

/**
 * `status` (one or more of the job statuses, comma-separated or repeated), `from` and `to` (ISO 8601 times: jobs
 * created at or after `from`, before `to`), `cursor` (the `next` of the page before) and `limit` (1 to 100, 20 by
 * default). Every mistake is reported at once, naming the parameter, as a 422 (as the other query parameters of
 * the v2 routes are).
 */
export function jobListQuery(endpointId: string, params: JobListParams): ListEndpointJobsQuery {
  const errors: string[] = [];
  const query: ListEndpointJobsQuery = { endpointId, limit: DEFAULT_JOB_LIMIT };
  const statuses = listOf(params.status);
  if (statuses.length) {
    const unknown = statuses.filter((s) => !(JOB_STATUSES as readonly string[]).includes(s));
    if (unknown.length) {
      errors.push(
        `status must be one or more of ${JOB_STATUSES.join(', ')}; got ${JSON.stringify(unknown.join(','))}`,
      );
    } else query.statuses = [...new Set(statuses)] as JobStatus[];
  }
  for (const name of ['from', 'to', 'cursor', 'limit'] as const) {
    if (Array.isArray(params[name])) errors.push(`${name} must be given at most once`);
  }
  for (const name of ['from', 'to'] as const) {
    const value = text(params[name]);
    if (value === undefined) continue;
    const at = ISO_TIME.test(value) ? new Date(value) : null;
    if (at && !Number.isNaN(at.getTime())) query[name] = at.toISOString();
    else {
      errors.push(
        `${name} must be an ISO 8601 time (e.g. 2026-03-01T12:00:00Z); got ${JSON.stringify(value)}`,
      );
    }
  }
  if (query.from && query.to && query.from >= query.to) errors.push('from must be earlier than to');
  const limit = text(params.limit);
  if (limit !== undefined) {
    if (/^\d{1,3}$/.test(limit) && Number(limit) >= 1 && Number(limit) <= JOB_LIST_MAX_LIMIT) {
      query.limit = Number(limit);
    } else {
      errors.push(`limit must be an integer from 1 to ${JOB_LIST_MAX_LIMIT}; got ${JSON.stringify(limit)}`);
    }
  }
  const cursor = text(params.cursor);
  if (cursor !== undefined) {
    const after = decodeCursor(cursor);
    if (after) query.after = after;
    else errors.push('cursor is not the `next` of a page of this list');
  }
  if (errors.length) {
    throw new DomainError(ErrorCode.ValidationFailed, 'the request failed validation', errors);
  }
  return query;
}

/** The opaque `next`: the last row's creation time and id, base64url. */
export function encodeCursor(cursor: JobListCursor | null): string | null {
  return cursor ? Buffer.from(JSON.stringify([cursor.createdAt, cursor.id])).toString('base64url') : null;
}

export function decodeCursor(value: string): JobListCursor | null {
  try {
    const decoded: unknown = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
    if (!Array.isArray(decoded) || decoded.length !== 2) return null;
    const [createdAt, id] = decoded as unknown[];
    if (typeof createdAt !== 'string' || typeof id !== 'string' || !id || id.length > 200) return null;
    const at = new Date(createdAt);
    return Number.isNaN(at.getTime()) || at.toISOString() !== createdAt ? null : { createdAt, id };
  } catch {
    return null;
  }
}

function listOf(value: unknown): string[] {
  const parts = Array.isArray(value) ? value : [value];
  return parts
    .filter((part): part is string => typeof part === 'string')
    .flatMap((part) => part.split(','))
    .map((part) => part.trim().toUpperCase())
    .filter(Boolean);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
