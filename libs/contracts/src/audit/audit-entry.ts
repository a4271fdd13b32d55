import { deriveId } from '../common/ids.js';
import { personOf, type CommandEnvelope, type CommandOutcome } from '../messaging/envelope.js';
import type { CommandSubject } from '../messaging/contract-map.js';
import { auditRuleOf } from './audit-actions.js';
import type { AuditResourceType, IdSource } from './audit.rules.js';

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

const MAX_DETAIL = 200;
const MAX_MESSAGE = 500;
const MAX_REASON = 300;

function read(source: IdSource<CommandSubject>, payload: unknown, value: unknown): string | undefined {
  const [from, field] = 'payload' in source ? [payload, source.payload] : [value, source.value];
  if (!from || typeof from !== 'object') return undefined;
  const found = (from as Record<string, unknown>)[field];
  return typeof found === 'string' && found ? found : undefined;
}

function first(
  sources: readonly IdSource<CommandSubject>[] | undefined,
  payload: unknown,
  value: unknown,
): string | undefined {
  for (const source of sources ?? []) {
    const found = read(source, payload, value);
    if (found) return found;
  }
  return undefined;
}

/** The entry id of a command's audit entry. */
export function auditEntryId(commandId: string): string {
  return `aud_${deriveId(commandId, 'audit')}`;
}

/**
 * The audit entry of a command and its outcome, as its rule (AUDIT_RULES) says; null when the subject is not
 * audited (or, for a rule of refusals only, when it succeeded). Pure: a replay of the command makes the same entry.
 */
export function auditEntryOf(envelope: CommandEnvelope, outcome: CommandOutcome): AuditEntry | null {
  const rule = auditRuleOf(envelope.subject);
  if (!rule || (rule.only === 'refused' && outcome.ok)) return null;
  const value = outcome.ok ? outcome.value : undefined;
  const { actor, payload } = envelope;
  const details: Record<string, string> = {};
  for (const field of rule.details ?? []) {
    const found = read({ payload: field }, payload, undefined);
    if (found) details[field] = found.slice(0, MAX_DETAIL);
  }
  return {
    id: auditEntryId(envelope.commandId),
    at: envelope.issuedAt,
    accountId: first(rule.account, payload, value) ?? actor.userId,
    actor: {
      userId: personOf(actor),
      ...(actor.keyId ? { keyId: actor.keyId } : {}),
      kind: actor.kind,
      ...(actor.reason ? { reason: actor.reason.slice(0, MAX_REASON) } : {}),
    },
    action: rule.action,
    resourceType: rule.resourceType,
    resourceId: first(rule.resourceId, payload, value) ?? null,
    outcome: outcome.ok
      ? { ok: true }
      : { ok: false, code: outcome.error.code, message: outcome.error.message.slice(0, MAX_MESSAGE) },
    ...(Object.keys(details).length ? { details } : {}),
    commandId: envelope.commandId,
  };
}
