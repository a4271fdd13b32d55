import { describe, expect, it } from '@jest/globals';
import { ACCOUNT_NAME } from '@app/contracts';
import {
  accountNameFrom,
  groupsOf,
  membershipChanges,
  parseGroupTeams,
  ssoSubjectOf,
  teamRolesFor,
  withSuffix,
} from './sso-claims.js';

const MAPPING = parseGroupTeams(
  'ml-research=research:dev,platform=platform:admin,ml-leads=research:admin,fin=research:billing',
);

describe('parseGroupTeams', () => {
  it('reads group=team:role pairs; empty is no mapping', () => {
    expect(parseGroupTeams('')).toEqual([]);
    expect(parseGroupTeams('ml-research=research:dev,platform=platform:admin')).toEqual([
      { group: 'ml-research', team: 'research', role: 'dev' },
      { group: 'platform', team: 'platform', role: 'admin' },
    ]);
  });

  it('keeps group names with colons and spaces', () => {
    expect(parseGroupTeams('idp:ml team=research:dev')).toEqual([
      { group: 'idp:ml team', team: 'research', role: 'dev' },
    ]);
  });

  it.each(['ml=research', 'ml=research:god', '=research:dev', 'ml=bad name:dev'])('refuses %s', (setting) => {
    expect(() => parseGroupTeams(setting)).toThrow(/OIDC_GROUP_TEAMS/);
  });
});

describe('groupsOf', () => {
  it('reads an array of strings, a lone string, and nothing else', () => {
    expect(groupsOf({ sub: 's', groups: ['a', 'b', 3] }, 'groups')).toEqual(['a', 'b']);
    expect(groupsOf({ sub: 's', groups: 'a' }, 'groups')).toEqual(['a']);
    expect(groupsOf({ sub: 's', groups: { a: 1 } }, 'groups')).toEqual([]);
    expect(groupsOf({ sub: 's', roles: ['x'] }, 'roles')).toEqual(['x']);
    expect(groupsOf({ sub: 's' }, 'groups')).toEqual([]);
  });
});

describe('names', () => {
  it('prefers preferred_username, then email, then name, cleaned to an account name', () => {
    expect(accountNameFrom({ sub: 's', preferred_username: 'ada', email: 'a@x.io' })).toBe('ada');
    expect(accountNameFrom({ sub: 's', email: 'ada.lovelace@example.com' })).toBe('ada.lovelace@example.com');
    expect(accountNameFrom({ sub: 's', name: 'Ada Lövelace' })).toBe('Ada.Lovelace');
    expect(accountNameFrom({ sub: 's', preferred_username: '!!!', name: 'Zoë' })).toBe('Zoe');
  });

  it('falls back to a hash of the subject, and every name is a valid account name', () => {
    const name = accountNameFrom({ sub: 'abc', name: '漢字' });
    expect(name).toMatch(/^sso-[0-9a-f]{12}$/);
    const long = accountNameFrom({ sub: 's', preferred_username: 'x'.repeat(200) });
    expect(long).toHaveLength(64);
    for (const n of [name, long, withSuffix(long, 's'), withSuffix('ada', 's')]) {
      expect(n).toMatch(ACCOUNT_NAME);
    }
  });

  it('a suffix is stable per subject and different across subjects', () => {
    expect(withSuffix('ada', 'one')).toBe(withSuffix('ada', 'one'));
    expect(withSuffix('ada', 'one')).not.toBe(withSuffix('ada', 'two'));
    expect(withSuffix('x'.repeat(64), 'one')).toHaveLength(64);
  });

  it('identifies the user by issuer and subject', () => {
    expect(ssoSubjectOf('https://idp.example.com', { sub: '42' })).toBe('https://idp.example.com#42');
  });
});

describe('teamRolesFor', () => {
  it('maps the groups held to roles; several groups of one team grant the highest role', () => {
    expect(teamRolesFor(['ml-research'], MAPPING)).toEqual(new Map([['research', 'dev']]));
    expect(teamRolesFor(['ml-research', 'ml-leads'], MAPPING)).toEqual(new Map([['research', 'admin']]));
    expect(teamRolesFor(['fin', 'ml-research'], MAPPING)).toEqual(new Map([['research', 'dev']]));
    expect(teamRolesFor(['platform', 'unmapped'], MAPPING)).toEqual(new Map([['platform', 'admin']]));
    expect(teamRolesFor([], MAPPING)).toEqual(new Map());
  });
});

describe('membershipChanges', () => {
  const research = { teamId: 'team_r', teamName: 'research' };
  const platform = { teamId: 'team_p', teamName: 'platform' };
  const other = { teamId: 'team_o', teamName: 'hand-made' };

  it('joins the teams the groups grant', () => {
    expect(membershipChanges(new Map([['research', 'dev']]), [], MAPPING)).toEqual({
      add: [{ team: 'research', role: 'dev' }],
      setRole: [],
      remove: [],
    });
  });

  it('changes a role, leaves a mapped team the groups no longer grant, never touches unmapped teams', () => {
    const changes = membershipChanges(
      new Map([['research', 'admin']]),
      [
        { ...research, role: 'dev' },
        { ...platform, role: 'admin' },
        { ...other, role: 'basic' },
      ],
      MAPPING,
    );
    expect(changes).toEqual({
      add: [],
      setRole: [{ teamId: 'team_r', team: 'research', role: 'admin' }],
      remove: [{ teamId: 'team_p', team: 'platform' }],
    });
  });

  it('never demotes nor removes an owner', () => {
    const changes = membershipChanges(
      new Map([['research', 'dev']]),
      [
        { ...research, role: 'owner' },
        { ...platform, role: 'owner' },
      ],
      MAPPING,
    );
    expect(changes).toEqual({ add: [], setRole: [], remove: [] });
  });

  it('changes nothing when the memberships already match', () => {
    expect(
      membershipChanges(new Map([['research', 'dev']]), [{ ...research, role: 'dev' }], MAPPING),
    ).toEqual({
      add: [],
      setRole: [],
      remove: [],
    });
  });
});
