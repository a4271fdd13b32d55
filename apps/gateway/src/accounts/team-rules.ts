import type { EntityManager } from 'typeorm';
import {
  DomainError,
  ErrorCode,
  personOf,
  roleMay,
  roleMayGrant,
  type Actor,
  type TeamRole,
} from '@app/contracts';
import type { TeamEntity } from './team.entity.js';
import type { NamedMember, TeamsRepository } from './teams.repository.js';
import type { UsersRepository } from './users.repository.js';

/** Who acts on a team: a member with their role, or an operator (who manages every team, member or not). */
export type TeamActor = { team: TeamEntity; role: TeamRole | 'operator' };

/**
 * The team, locked for the command, and the acting role. A user who is not a member learns nothing of it: "does
 * not exist", as for an unknown id.
 */
export async function actingOnTeam(
  teams: TeamsRepository,
  { teamId, asOperator }: { teamId: string; asOperator?: boolean },
  actor: Actor,
  manager: EntityManager,
): Promise<TeamActor> {
  const team = await teams.lockTeam(teamId, manager);
  const member = team ? await teams.member(team.id, personOf(actor), manager) : null;
  if (!team || (!member && !asOperator)) throw DomainError.notFound('team', teamId);
  return { team, role: asOperator ? 'operator' : member!.role };
}

/** The member a command names, with their name; "not found" when they are no member of the team. */
export async function namedMember(
  teams: TeamsRepository,
  team: TeamEntity,
  userId: string,
  manager: EntityManager,
): Promise<NamedMember> {
  const member = (await teams.members(team.id, manager)).find((m) => m.userId === userId);
  if (!member) throw DomainError.notFound(`member of team ${team.name}:`, userId);
  return member;
}

/** Refuses unless the role may change the team (its name, its members). */
export function mayManageTeam({ team, role }: TeamActor): void {
  if (role === 'operator' || roleMay(role, 'team', 'write')) return;
  throw new DomainError(
    ErrorCode.Forbidden,
    `your role in team ${team.name} is ${role}: only an owner or admin may change the team or its members`,
  );
}

/** Refuses unless the acting role may give (or take away) `role`: an admin never makes or unmakes an owner. */
export function mayGrant({ team, role: acting }: TeamActor, role: TeamRole): void {
  if (acting === 'operator' || roleMayGrant(acting, role)) return;
  throw new DomainError(
    ErrorCode.Forbidden,
    `your role in team ${team.name} is ${acting}: only an owner may give or take away the role ${role}`,
  );
}

/** Refuses to leave a team without an owner. */
export async function keepsAnOwner(
  teams: TeamsRepository,
  team: TeamEntity,
  member: { userId: string; role: TeamRole; name: string },
  manager: EntityManager,
): Promise<void> {
  if (member.role !== 'owner' || (await teams.countOwners(team.id, manager)) > 1) return;
  throw new DomainError(
    ErrorCode.InvalidState,
    `${member.name} is the last owner of team ${team.name}: make another member owner first`,
  );
}

/** A name no user and no team has yet (they share one namespace: the CLI and the routes take either). */
export async function freeAccountName(
  users: UsersRepository,
  teams: TeamsRepository,
  name: string,
  manager: EntityManager,
): Promise<void> {
  if (await users.findByIdOrName(name, manager)) {
    throw new DomainError(ErrorCode.Conflict, `a user named ${name} already exists`);
  }
  if (await teams.findTeam(name, manager)) {
    throw new DomainError(ErrorCode.Conflict, `a team named ${name} already exists`);
  }
}
