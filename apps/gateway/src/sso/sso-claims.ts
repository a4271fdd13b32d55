import { createHash } from 'node:crypto';
import { ACCOUNT_NAME, isTeamRole, TEAM_ROLES, type TeamRole } from '@app/contracts';

/**
 * What a sign-in's claims mean here, as pure functions: the user's name, their groups, and the team memberships
 * those groups grant (OIDC_GROUP_TEAMS). No I/O, so every rule is unit-tested (sso-claims.spec.ts).
 */

/** One `group=team:role` pair of OIDC_GROUP_TEAMS. */
export interface GroupTeam {
  group: string;
  team: string;
  role: TeamRole;
}

/** Parses OIDC_GROUP_TEAMS (the config already checked its shape): `ml-research=research:dev,platform=platform:admin`. */
export function parseGroupTeams(setting: string): GroupTeam[] {
  if (setting.trim() === '') return [];
  return setting.split(',').map((pair) => {
    const equals = pair.indexOf('=');
    const colon = pair.lastIndexOf(':');
    const group = pair.slice(0, equals).trim();
    const team = pair.slice(equals + 1, colon).trim();
    const role = pair.slice(colon + 1).trim();
    if (equals <= 0 || colon < equals || !group || !ACCOUNT_NAME.test(team) || !isTeamRole(role)) {
      throw new Error(`OIDC_GROUP_TEAMS: '${pair}' is not group=team:role`);
    }
    return { group, team, role };
  });
}

/** The claims a sign-in hands over (ID token, completed by userinfo): only what is read here is typed. */
export type Claims = Record<string, unknown> & { sub: string; iss?: string };

/**
 * The groups claim as a list of names: an array of strings (Okta, Keycloak, Entra's object ids), or one string
 * (some providers send a lone group so); anything else is no group.
 */
export function groupsOf(claims: Claims, claim: string): string[] {
  const value = claims[claim];
  if (typeof value === 'string') return [value];
  if (!Array.isArray(value)) return [];
  return value.filter((g): g is string => typeof g === 'string');
}

/** The identity the user is found by on later sign-ins: the issuer and subject, which the provider never reuses. */
export function ssoSubjectOf(issuer: string, claims: Claims): string {
  return `${issuer}#${claims.sub}`;
}

const MAX_NAME = 64;

/** `[A-Za-z0-9._@-]` only, at most 64: what account names allow. */
function cleaned(value: string): string {
  return value
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/\s+/g, '.')
    .replace(/[^A-Za-z0-9._@-]/g, '')
    .replace(/^[.]+|[.]+$/g, '')
    .slice(0, MAX_NAME);
}

/**
 * The name a first sign-in gives the user: `preferred_username`, else `email`, else `name`, cleaned to what
 * account names allow; failing all, `sso-<hash of the subject>`. Names are unique among users and teams: when
 * taken, `withSuffix` gives the next try.
 */
export function accountNameFrom(claims: Claims): string {
  for (const claim of ['preferred_username', 'email', 'name']) {
    const value = claims[claim];
    if (typeof value !== 'string') continue;
    const name = cleaned(value);
    if (name && ACCOUNT_NAME.test(name)) return name;
  }
  return `sso-${createHash('sha256').update(claims.sub).digest('hex').slice(0, 12)}`;
}

/** `name-<6 hex of the subject>`, cut so it stays within 64: a second user with the same display name. */
export function withSuffix(name: string, subject: string): string {
  const suffix = `-${createHash('sha256').update(subject).digest('hex').slice(0, 6)}`;
  return `${name.slice(0, MAX_NAME - suffix.length)}${suffix}`;
}

/** The rank of a role: a lower index is more rights (TEAM_ROLES is ordered owner → basic). */
function rank(role: TeamRole): number {
  return TEAM_ROLES.indexOf(role);
}

/**
 * The role the user should hold in each team the mapping names: team name → role, for the groups they are in;
 * several groups naming one team grant the highest of their roles (`billing` and `dev` are not ordered by rights,
 * TEAM_ROLES' order decides). A team the mapping names but none of the user's groups maps to is absent.
 */
export function teamRolesFor(
  groups: readonly string[],
  mapping: readonly GroupTeam[],
): Map<string, TeamRole> {
  const held = new Set(groups);
  const roles = new Map<string, TeamRole>();
  for (const { group, team, role } of mapping) {
    if (!held.has(group)) continue;
    const current = roles.get(team);
    if (current === undefined || rank(role) < rank(current)) roles.set(team, role);
  }
  return roles;
}

/** A membership the user holds now: by team name, as the mapping names teams. */
export interface Membership {
  teamId: string;
  teamName: string;
  role: TeamRole;
}

export interface MembershipChanges {
  /** Teams to join (by name; the team may not exist yet), with the role. */
  add: { team: string; role: TeamRole }[];
  setRole: { teamId: string; team: string; role: TeamRole }[];
  remove: { teamId: string; team: string }[];
}

/**
 * What to change so the memberships of the MAPPED teams are what the groups say: join, change role, leave. Teams
 * the mapping does not name are never touched (members added by hand stay), and neither is an `owner`: sign-in
 * neither demotes nor removes an owner (the last owner of a team cannot go, and an owner set by hand is deliberate).
 */
export function membershipChanges(
  wanted: ReadonlyMap<string, TeamRole>,
  current: readonly Membership[],
  mapping: readonly GroupTeam[],
): MembershipChanges {
  const mapped = new Set(mapping.map((m) => m.team));
  const byName = new Map(current.map((m) => [m.teamName, m]));
  const changes: MembershipChanges = { add: [], setRole: [], remove: [] };
  for (const [team, role] of wanted) {
    const now = byName.get(team);
    if (!now) changes.add.push({ team, role });
    else if (now.role !== role && now.role !== 'owner') {
      changes.setRole.push({ teamId: now.teamId, team, role });
    }
  }
  for (const m of current) {
    if (mapped.has(m.teamName) && !wanted.has(m.teamName) && m.role !== 'owner') {
      changes.remove.push({ teamId: m.teamId, team: m.teamName });
    }
  }
  return changes;
}
