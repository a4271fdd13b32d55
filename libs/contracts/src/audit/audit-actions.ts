import type { CommandSubject } from '../messaging/contract-map.js';
import { AUDIT_RULES, type AuditRule, type NotAudited } from './audit.rules.js';

/** An audit action no command makes: the broker's sweep found an endpoint's worker lost (a machine decision). */
export const WORKER_LOST_ACTION = 'worker.lost';

/** Every action an entry may carry, for the filter's validation and the console's choice list. */
export const AUDIT_ACTIONS: readonly string[] = [
  ...new Set([
    ...Object.values(AUDIT_RULES as Record<string, AuditRule<CommandSubject> | NotAudited>)
      .filter((rule): rule is AuditRule<CommandSubject> => 'action' in rule)
      .map((rule) => rule.action),
    WORKER_LOST_ACTION,
  ]),
].sort();

/** The rule of an audited subject; undefined for a subject not audited (or not a command). */
export function auditRuleOf(subject: string): AuditRule<CommandSubject> | undefined {
  const rule = (AUDIT_RULES as Record<string, AuditRule<CommandSubject> | NotAudited | undefined>)[subject];
  return rule && 'action' in rule ? rule : undefined;
}
