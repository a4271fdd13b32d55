import { DomainError, ErrorCode, roleMay, type TeamRole } from '@app/contracts';

/** What of a principal decides whose trail it reads (Principal has it; tests build it by hand). */
export interface AuditReader {
  key: { scope: string };
  account: { id: string; name: string; kind: 'user' | 'team' };
  role: TeamRole;
}

/** The accounts a request reads: one, or every one (an operator's key, maybe narrowed to one account). */
export type AuditReach = { account: string } | { every: true; account?: string };

/**
 * Who sees what (docs/api.md, "Audit trail"): a key of scope `operator` every account (or the one `accountId`
 * names); any other key its own account, a team's only for a role that may read the audit (owner, admin: ROLE_GRANTS);
 * `accountId` naming another account is refused, never silently narrowed.
 */
export function auditReachOf(reader: AuditReader, accountId?: string): AuditReach {
  if (reader.key.scope === 'operator') {
    return accountId ? { every: true, account: accountId } : { every: true };
  }
  if (accountId !== undefined && accountId !== reader.account.id) {
    throw new DomainError(ErrorCode.Forbidden, "only an operator's key reads another account's audit trail");
  }
  if (!roleMay(reader.role, 'audit', 'read')) {
    throw new DomainError(
      ErrorCode.Forbidden,
      `the role ${reader.role} in team ${reader.account.name} may not read its audit trail (owner and admin may)`,
    );
  }
  return { account: reader.account.id };
}
