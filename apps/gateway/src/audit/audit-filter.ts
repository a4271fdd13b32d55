import { AUDIT_ACTIONS, AUDIT_RESOURCE_TYPES, DomainError, ErrorCode } from '@app/contracts';

/** `GET /v2/audit`'s filters, checked. `accountId` is an operator's (anyone else reads one account's trail). */
export interface AuditFilter {
  from?: Date;
  to?: Date;
  actor?: string;
  action?: string;
  resourceType?: string;
  resourceId?: string;
  /** Strictly older than this entry (the page before ended there). */
  after?: AuditCursor;
  limit: number;
  accountId?: string;
}

/** Where a page ended: the last entry's time and id (the page order is at, id, newest first). */
export interface AuditCursor {
  at: Date;
  id: string;
}

export const AUDIT_DEFAULT_LIMIT = 50;
export const AUDIT_MAX_LIMIT = 500;
const MAX_ID = 200;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const PARAMS = new Set([
  'from',
  'to',
  'actor',
  'action',
  'resourceType',
  'resourceId',
  'cursor',
  'limit',
  'accountId',
]);

/** The opaque cursor of the page after `entry`. */
export function encodeCursor(cursor: AuditCursor): string {
  return Buffer.from(JSON.stringify([cursor.at.toISOString(), cursor.id])).toString('base64url');
}

function decodeCursor(text: string): AuditCursor | undefined {
  try {
    const [at, id] = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown[];
    const date = typeof at === 'string' && ISO.test(at) ? new Date(at) : undefined;
    if (!date || Number.isNaN(date.getTime()) || typeof id !== 'string' || !id) return undefined;
    return { at: date, id };
  } catch {
    return undefined;
  }
}

/**
 * The query string of `GET /v2/audit` as a filter; every bad parameter named in one 422 (`errors`, one each): an
 * unknown parameter, a malformed time, `from` after `to`, an action or resource type no entry has, a cursor this
 * route did not give, a limit outside 1-500.
 */
export function parseAuditQuery(query: Record<string, unknown>): AuditFilter {
  const errors: string[] = [];
  const text = (name: string): string | undefined => {
    const value = query[name];
    if (value === undefined || value === '') return undefined;
    if (typeof value !== 'string') {
      errors.push(`${name} must be given once, as a string`);
      return undefined;
    }
    if (value.length > MAX_ID) errors.push(`${name} must be at most ${MAX_ID} characters`);
    return value;
  };
  const time = (name: string): Date | undefined => {
    const value = text(name);
    if (value === undefined) return undefined;
    const parsed = new Date(value);
    if (!ISO.test(value) || Number.isNaN(parsed.getTime())) {
      errors.push(`${name} must be an RFC 3339 time such as 2026-01-01T00:00:00Z`);
      return undefined;
    }
    return parsed;
  };
  for (const name of Object.keys(query)) {
    if (!PARAMS.has(name)) errors.push(`${name} is not a filter of /v2/audit`);
  }
  const filter: AuditFilter = { limit: AUDIT_DEFAULT_LIMIT };
  filter.from = time('from');
  filter.to = time('to');
  if (filter.from && filter.to && filter.from > filter.to) errors.push('from must not be after to');
  filter.actor = text('actor');
  filter.action = text('action');
  if (filter.action && !AUDIT_ACTIONS.includes(filter.action)) {
    errors.push(`action must be one of ${AUDIT_ACTIONS.join(', ')}`);
  }
  filter.resourceType = text('resourceType');
  if (filter.resourceType && !(AUDIT_RESOURCE_TYPES as readonly string[]).includes(filter.resourceType)) {
    errors.push(`resourceType must be one of ${AUDIT_RESOURCE_TYPES.join(', ')}`);
  }
  filter.resourceId = text('resourceId');
  filter.accountId = text('accountId');
  const cursor = text('cursor');
  if (cursor !== undefined) {
    filter.after = decodeCursor(cursor);
    if (!filter.after) errors.push('cursor must be a nextCursor this route answered');
  }
  const limit = text('limit');
  if (limit !== undefined) {
    const n = /^\d+$/.test(limit) ? Number(limit) : NaN;
    if (!(n >= 1 && n <= AUDIT_MAX_LIMIT)) {
      errors.push(`limit must be an integer from 1 to ${AUDIT_MAX_LIMIT}`);
    } else filter.limit = n;
  }
  if (errors.length) {
    throw new DomainError(ErrorCode.ValidationFailed, 'the request failed validation', errors);
  }
  for (const key of Object.keys(filter) as (keyof AuditFilter)[]) {
    if (filter[key] === undefined) delete filter[key];
  }
  return filter;
}
