import { describe, expect, it } from '@jest/globals';
import { ErrorCode } from '../errors/error-code.js';
import type { CommandEnvelope } from './envelope.js';
import { CommandPayloadClasses, type CommandSubject } from './contract-map.js';
import { Subjects } from './subjects.js';
import { auditEntryId } from '../audit/audit-entry.js';
import { AUDIT_ACTIONS, auditEntryOf, auditRuleOf } from './audit-entries.js';
import { AUDIT_RULES, type AuditRule, type NotAudited } from './audit-rules.js';

function envelope(subject: string, payload: unknown, actor: CommandEnvelope['actor']): CommandEnvelope {
  return {
    commandId: 'cmd-1',
    issuedAt: '2026-12-01T10:00:00.000Z',
    actor,
    correlationId: 'corr-1',
    subject,
    payload,
  };
}

const USER = { userId: 'u-1', keyId: 'k-1', kind: 'user' as const };

// Compile-time checks (run by the tests' type-check): each marked line must fail to compile.
export const wrongRules: Partial<{ [S in CommandSubject]: AuditRule<S> | NotAudited }> = {
  // @ts-expect-error pod.start's payload has no field `id` (it names its pod `podId`)
  [Subjects.pod.start]: { action: 'pod.start', resourceType: 'pod', resourceId: [{ payload: 'id' }] },
  // @ts-expect-error a create's result field must be a string: gpuCount is a number
  [Subjects.pod.create]: { action: 'pod.create', resourceType: 'pod', resourceId: [{ value: 'gpuCount' }] },
};

describe('AUDIT_RULES', () => {
  it('names every command subject, and nothing else', () => {
    expect(Object.keys(AUDIT_RULES).sort()).toEqual(Object.keys(CommandPayloadClasses).sort());
  });

  it('audits nothing of the job path', () => {
    for (const subject of Object.keys(AUDIT_RULES)) {
      const hot =
        subject.startsWith('worker.') ||
        /^job\.cmd\.(submit|submit-many|set-ttl|read-stream|cancel|retry|sweep)$/.test(subject);
      if (hot) expect(auditRuleOf(subject)).toBeUndefined();
    }
  });

  it('audits every account command, each in the trail of the account it changes', () => {
    for (const subject of Object.values(Subjects.account).filter((s) => s.includes('.cmd.'))) {
      expect(auditRuleOf(subject)).toBeDefined();
    }
    expect(auditRuleOf(Subjects.account.addMember)).toMatchObject({
      action: 'team.add-member',
      resourceType: 'team',
    });
  });

  it('gives each audited subject one action of the form <resource>.<verb>, none twice', () => {
    const actions = Object.keys(AUDIT_RULES).flatMap((subject) => auditRuleOf(subject)?.action ?? []);
    expect(new Set(actions).size).toBe(actions.length);
    for (const action of actions) expect(action).toMatch(/^[a-z-]+\.[a-z-]+$/);
    expect(AUDIT_ACTIONS).toContain('worker.lost');
  });

  it('says why for every subject it does not audit', () => {
    for (const rule of Object.values(AUDIT_RULES)) {
      if ('notAudited' in rule) expect(rule.notAudited.length).toBeGreaterThan(10);
    }
  });
});

describe('auditEntryOf', () => {
  it('makes a create entry from the outcome: the new id, the names, never the env', () => {
    const payload = { name: 'web', templateId: 'tpl-1', env: { SECRET: 's3cr3t' }, gpuCount: 1 };
    const entry = auditEntryOf(envelope(Subjects.pod.create, payload, USER), {
      ok: true,
      value: { id: 'pod-9', name: 'web' },
    });
    expect(entry).toEqual({
      id: auditEntryId('cmd-1'),
      at: '2026-12-01T10:00:00.000Z',
      accountId: 'u-1',
      actor: { userId: 'u-1', keyId: 'k-1', kind: 'user' },
      action: 'pod.create',
      resourceType: 'pod',
      resourceId: 'pod-9',
      outcome: { ok: true },
      details: { name: 'web', templateId: 'tpl-1' },
      commandId: 'cmd-1',
    });
    expect(JSON.stringify(entry)).not.toContain('s3cr3t');
  });

  it('records a refusal with its code and message, and no id it never got', () => {
    const entry = auditEntryOf(envelope(Subjects.pod.create, { name: 'web' }, USER), {
      ok: false,
      error: { code: ErrorCode.SpendLimitReached, message: 'the monthly spend limit is reached' },
    });
    expect(entry).toMatchObject({
      resourceId: null,
      outcome: { ok: false, code: 'SPEND_LIMIT_REACHED', message: 'the monthly spend limit is reached' },
    });
  });

  it("names the person of a team's member, the team as the account, and a machine's reason", () => {
    const member = auditEntryOf(
      envelope(
        Subjects.pod.stop,
        { podId: 'pod-1' },
        { userId: 'team_1', memberId: 'u-2', keyId: 'k-2', kind: 'user' },
      ),
      { ok: true, value: {} },
    );
    expect(member).toMatchObject({
      accountId: 'team_1',
      actor: { userId: 'u-2', keyId: 'k-2' },
      resourceId: 'pod-1',
    });
    const machine = auditEntryOf(
      envelope(
        Subjects.pod.stop,
        { podId: 'pod-1' },
        { userId: 'u-1', kind: 'system', reason: 'autoscaler: scale-down' },
      ),
      { ok: true, value: {} },
    );
    expect(machine).toMatchObject({
      accountId: 'u-1',
      actor: { kind: 'system', reason: 'autoscaler: scale-down' },
    });
  });

  it('puts a team command in the team trail, whoever issued it', () => {
    const entry = auditEntryOf(
      envelope(Subjects.account.addMember, { teamId: 'team_1', user: 'bob', role: 'dev' }, USER),
      { ok: true, value: {} },
    );
    expect(entry).toMatchObject({
      accountId: 'team_1',
      action: 'team.add-member',
      resourceId: 'team_1',
      details: { user: 'bob', role: 'dev' },
    });
  });

  it('never copies a key hash nor a password', () => {
    const key = auditEntryOf(
      envelope(
        Subjects.account.createKey,
        {
          user: 'u-1',
          scope: 'full',
          name: 'ci',
          endpointIds: [],
          keyHash: 'a'.repeat(64),
          keyPrefix: 'rpa_x',
        },
        USER,
      ),
      { ok: true, value: { id: 'key-1', accountId: 'u-1' } },
    );
    expect(JSON.stringify(key)).not.toContain('a'.repeat(64));
    const registry = auditEntryOf(
      envelope(Subjects.registryAuth.update, { id: 'ra-1', username: 'me', passwordSealed: 'sealed!' }, USER),
      { ok: true, value: {} },
    );
    expect(JSON.stringify(registry)).not.toMatch(/sealed!|"me"/);
  });

  it('enters only the refusals of a placement (its success is the pod create)', () => {
    const reserve = envelope(
      Subjects.placement.reserve,
      { podId: 'pod-1', ownerId: 'u-7', gpuCount: 1 },
      {
        userId: 'system:pod-lifecycle',
        kind: 'system',
      },
    );
    expect(auditEntryOf(reserve, { ok: true, value: {} })).toBeNull();
    expect(
      auditEntryOf(reserve, {
        ok: false,
        error: { code: ErrorCode.CapacityUnavailable, message: 'no host' },
      }),
    ).toMatchObject({ accountId: 'u-7', action: 'placement.reserve', resourceId: 'pod-1' });
  });

  it('makes nothing for a subject not audited', () => {
    expect(auditEntryOf(envelope(Subjects.job.submit, {}, USER), { ok: true, value: {} })).toBeNull();
  });
});
