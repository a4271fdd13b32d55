import { describe, expect, it } from '@jest/globals';
import { DomainError, ErrorCode, TEAM_ROLES, type TeamRole } from '@app/contracts';
import { auditReachOf, type AuditReader } from './audit-access.js';

function reader(kind: 'user' | 'team', role: TeamRole, scope = 'full'): AuditReader {
  return { key: { scope }, account: { id: kind === 'team' ? 'team_1' : 'u-1', name: 'acme', kind }, role };
}

function refusal(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (error) {
    return error as DomainError;
  }
  throw new Error('expected a refusal');
}

describe('auditReachOf', () => {
  it("gives a personal account's key its own trail", () => {
    expect(auditReachOf(reader('user', 'owner'))).toEqual({ account: 'u-1' });
    expect(auditReachOf(reader('user', 'owner', 'read'), 'u-1')).toEqual({ account: 'u-1' });
  });

  it("gives a team's trail to its owners and admins only", () => {
    for (const role of TEAM_ROLES) {
      if (role === 'owner' || role === 'admin') {
        expect(auditReachOf(reader('team', role))).toEqual({ account: 'team_1' });
      } else {
        const error = refusal(() => auditReachOf(reader('team', role)));
        expect(error.code).toBe(ErrorCode.Forbidden);
        expect(error.message).toContain(`the role ${role} in team acme may not read its audit trail`);
      }
    }
  });

  it("refuses another account's trail to anyone but an operator", () => {
    expect(refusal(() => auditReachOf(reader('user', 'owner'), 'u-2')).code).toBe(ErrorCode.Forbidden);
    expect(refusal(() => auditReachOf(reader('team', 'admin'), 'u-1')).code).toBe(ErrorCode.Forbidden);
  });

  it("gives an operator's key every account, or the one it names", () => {
    expect(auditReachOf(reader('user', 'owner', 'operator'))).toEqual({ every: true });
    expect(auditReachOf(reader('user', 'basic', 'operator'), 'team_9')).toEqual({
      every: true,
      account: 'team_9',
    });
  });
});
