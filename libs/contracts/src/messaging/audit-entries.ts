import { WORKER_LOST_ACTION, auditEntryId, type AuditEntry } from '../audit/audit-entry.js';
import { PREEMPTED_ACTION } from '../quotas/preemption.events.js';
import type { CommandSubject } from './contract-map.js';
import { personOf, type CommandEnvelope, type CommandOutcome } from './envelope.js';
import { AUDIT_RULES, type AuditRule, type IdSource, type NotAudited } from './audit-rules.js';

/** Every action an entry may carry, for the filter's validation and the console's choice list. */
export const AUDIT_ACTIONS: readonly string[] = [
  ...new Set([
    ...Object.values(AUDIT_RULES as Record<string, AuditRule<CommandSubject> | NotAudited>)
      .filter((rule): rule is AuditRule<CommandSubject> => 'action' in rule)
      .map((rule) => rule.action),
    WORKER_LOST_ACTION,
    PREEMPTED_ACTION,
  ]),
].sort();

/** The rule of an audited subject; undefined for a subject not audited (or not a command). */
export function auditRuleOf(subject: string): AuditRule<CommandSubject> | undefined {
  const rule = (AUDIT_RULES as Record<string, AuditRule<CommandSubject> | NotAudited | undefined>)[subject];
  return rule && 'action' in rule ? rule : undefined;
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
