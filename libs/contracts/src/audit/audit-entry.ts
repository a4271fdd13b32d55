import { deriveId } from '../common/ids.js';

/** What an audit entry is about. */
export const AUDIT_RESOURCE_TYPES = [
  'pod',
  'cluster',
  'endpoint',
  'volume',
  'template',
  'registry-auth',
  'account',
  'user',
  'api-key',
  'team',
  'worker',
  'quota',
  'host',
] as const;
export type AuditResourceType = (typeof AUDIT_RESOURCE_TYPES)[number];

/** Who did it: the person (a team's member, or the user acting for themselves), the key, and a machine's reason. */
export interface AuditActor {
  /** The person: `personOf(actor)`; for a system actor, the account it acted for (or `system…`). */
  userId: string;
  keyId?: string;
  kind: 'user' | 'system';
  /** Why a system actor acted (an autoscaler's scale-up, a worker found lost). */
  reason?: string;
}

export type AuditOutcome = { ok: true } | { ok: false; code: string; message: string };

/**
 * One entry of an account's audit trail (`audit.evt.recorded`, and `GET /v2/audit`). Only ids, names and roles of
 * the command are copied, never another payload value (no environment, no secret).
 */
export interface AuditEntry {
  /** Derived from the command's id (`deriveId(commandId, 'audit')`), so a replay makes the same entry. */
  id: string;
  /** The command's issue time (ISO-8601). */
  at: string;
  /** Whose trail it is in: the account the command acted for, or the account of its resource. */
  accountId: string;
  actor: AuditActor;
  action: string;
  resourceType: AuditResourceType;
  resourceId: string | null;
  outcome: AuditOutcome;
  /** Ids and names of the command worth showing (a pod's name, a member's role). */
  details?: Record<string, string>;
  /** The recorded command the entry is of (absent for an entry a sweep made for each worker it found lost). */
  commandId?: string;
}

/** `audit.evt.recorded`: the entry, as its owner app recorded it with the command's outcome. */
export type AuditRecordedEvent = AuditEntry;

/** `GET /v2/audit`: a page, newest first, and the cursor of the next page (null: none). */
export interface AuditPage {
  entries: AuditEntry[];
  nextCursor: string | null;
}

/** An audit action no command makes: the broker's sweep found an endpoint's worker lost (a machine decision). */
export const WORKER_LOST_ACTION = 'worker.lost';

/** The entry id of a command's audit entry. */
export function auditEntryId(commandId: string): string {
  return `aud_${deriveId(commandId, 'audit')}`;
}
