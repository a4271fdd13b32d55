/**
 * The roles a member holds in a team: RunPod's four (docs: accounts-billing/manage-accounts.mdx, "Roles and
 * permissions") and `owner`, which only owners grant and which the last one cannot give up. A user acting for
 * their own account holds every right (`owner`).
 */
export const TEAM_ROLES = ['owner', 'admin', 'dev', 'billing', 'basic'] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];

export function isTeamRole(value: unknown): value is TeamRole {
  return typeof value === 'string' && (TEAM_ROLES as readonly string[]).includes(value);
}

/**
 * What a route acts on, as the role table names it. Every authenticated route names one (`@Auth({resource})`, a
 * GraphQL field's, a queue or LB route's); `catalog` is the fleet's offer (GPU types, data centers, public
 * templates), every role reads it.
 */
export const ACCOUNT_RESOURCES = [
  'pods',
  'clusters',
  'endpoints',
  /** Sending requests to serverless and load-balancing endpoints: the queue routes and LB routes. */
  'requests',
  'volumes',
  'templates',
  'registry-auth',
  /** The account's settings: its SSH keys. */
  'settings',
  /** Usage, prices, invoices and spend limits. */
  'billing',
  /** The caller's own API keys for this account. */
  'api-keys',
  /** The team: its name and members. */
  'team',
  'audit',
  'catalog',
] as const;
export type AccountResource = (typeof ACCOUNT_RESOURCES)[number];

export type Access = 'read' | 'write';

type Grants = Readonly<Record<Access, readonly TeamRole[]>>;

const EVERY: readonly TeamRole[] = TEAM_ROLES;
const USERS: readonly TeamRole[] = ['owner', 'admin', 'dev', 'basic'];
const BUILDERS: readonly TeamRole[] = ['owner', 'admin', 'dev'];
const ADMINS: readonly TeamRole[] = ['owner', 'admin'];
const MONEY: readonly TeamRole[] = ['owner', 'admin', 'billing'];

/**
 * The role × action matrix, one row per resource: which roles may read it and which may change it. RunPod's table
 * row by row: basic connects to pods and clusters and sends requests to endpoints; billing sees and manages only
 * billing; dev creates, starts, stops and deletes pods, endpoints and network volumes (and the templates and
 * registry credentials they are made of); only admin (and owner) create or delete clusters, manage members, change
 * the team's settings and read the audit trail. docs/api.md, "Teams and roles", prints it.
 */
export const ROLE_GRANTS: Readonly<Record<AccountResource, Grants>> = {
  pods: { read: USERS, write: BUILDERS },
  clusters: { read: USERS, write: ADMINS },
  endpoints: { read: USERS, write: BUILDERS },
  requests: { read: USERS, write: USERS },
  volumes: { read: USERS, write: BUILDERS },
  templates: { read: USERS, write: BUILDERS },
  'registry-auth': { read: USERS, write: BUILDERS },
  settings: { read: USERS, write: ADMINS },
  billing: { read: MONEY, write: MONEY },
  'api-keys': { read: EVERY, write: EVERY },
  team: { read: EVERY, write: ADMINS },
  audit: { read: ADMINS, write: [] },
  catalog: { read: EVERY, write: EVERY },
};

export function roleMay(role: TeamRole, resource: AccountResource, access: Access): boolean {
  return ROLE_GRANTS[resource][access].includes(role);
}

/**
 * The roles a member of `granter`'s role may give or take away: owners any, admins any but `owner` (an admin
 * neither makes nor removes an owner), the others none.
 */
export function roleMayGrant(granter: TeamRole, role: TeamRole): boolean {
  if (granter === 'owner') return true;
  return granter === 'admin' && role !== 'owner';
}
