import { Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCode,
  Subjects,
  type Actor,
  type MemberChanged,
  type TeamMemberView,
  type TeamRole,
  type TeamView,
} from '@app/contracts';
import { CommandBus, QueryBus } from '@app/messaging';
import { toMemberView } from '../accounts/account.mapper.js';
import { AccountsService } from '../accounts/accounts.service.js';
import type { Principal } from '../accounts/principal.js';
import { liveResourcesOf } from '../accounts/live-resources.js';
import { TeamsRepository, type TeamWithCount } from '../accounts/teams.repository.js';
import { actorOf } from '../auth/auth.decorators.js';

function toTeamView(team: TeamWithCount, role?: TeamRole): TeamView {
  return {
    id: team.id,
    name: team.name,
    createdAt: new Date(team.createdAt).toISOString(),
    ...(role ? { role } : {}),
    members: Number(team.members),
  };
}

/**
 * The team routes: reads from the gateway's own tables, changes as `account.cmd.*` commands, whose handlers hold
 * the rules (who may, the last owner). A team key acts for its team only: through it no other team exists. An
 * operator key manages every team (`asOperator`).
 */
@Injectable()
export class TeamsService {
  constructor(
    private readonly teams: TeamsRepository,
    private readonly accounts: AccountsService,
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  /** Cached principals of the user, or acting for the team, dropped on every replica before the answer. */
  private changed(userOrTeamId: string, revokedKeyIds: string[] = []): Promise<void> {
    return this.accounts.announce([{ userId: userOrTeamId, revokedKeyIds, reason: 'team-changed' }]);
  }

  private operator(principal: Principal): boolean {
    return principal.key.scope === 'operator';
  }

  /** The team as the caller may see it: a member's (with their role), an operator's, or 404. */
  private async visible(principal: Principal, teamId: string): Promise<TeamView> {
    const foreign = principal.account.kind === 'team' && principal.account.id !== teamId;
    const [team] = foreign ? [] : await this.teams.teams({ teamId });
    const member = team ? await this.teams.member(team.id, principal.user.id) : null;
    if (!team || (!member && !this.operator(principal))) throw DomainError.notFound('team', teamId);
    return toTeamView(team, member?.role);
  }

  /** The command's actor and whether it acts as an operator, once the team is visible to the caller. */
  private async acting(
    principal: Principal,
    teamId: string,
  ): Promise<{ actor: Actor; asOperator?: boolean }> {
    const view = await this.visible(principal, teamId);
    return { actor: actorOf(principal), ...(view.role ? {} : { asOperator: true }) };
  }

  async create(principal: Principal, name: string): Promise<TeamView> {
    if (principal.account.kind === 'team') {
      throw new DomainError(
        ErrorCode.Forbidden,
        "a team's key acts for its team: create a team with your own key",
      );
    }
    return this.commands.execute(Subjects.account.createTeam, { name }, actorOf(principal));
  }

  async list(principal: Principal): Promise<TeamView[]> {
    if (this.operator(principal)) {
      const mine = new Map((await this.teams.memberships(principal.user.id)).map((m) => [m.teamId, m.role]));
      return (await this.teams.teams()).map((team) => toTeamView(team, mine.get(team.id)));
    }
    const teams = await this.teams.teams({ userId: principal.user.id });
    const own =
      principal.account.kind === 'team' ? teams.filter((t) => t.id === principal.account.id) : teams;
    return own.map((team) => toTeamView(team, team.role));
  }

  get(principal: Principal, teamId: string): Promise<TeamView> {
    return this.visible(principal, teamId);
  }

  async rename(principal: Principal, teamId: string, name: string): Promise<TeamView> {
    const { actor, asOperator } = await this.acting(principal, teamId);
    const renamed = await this.commands.execute(
      Subjects.account.renameTeam,
      { teamId, name, asOperator },
      actor,
    );
    await this.changed(teamId);
    return renamed;
  }

  /** Refused while the team owns anything live: deleted, it would leave it running for nobody. */
  async delete(principal: Principal, teamId: string): Promise<void> {
    const view = await this.visible(principal, teamId);
    const actor = actorOf(principal);
    const asOperator = view.role ? undefined : true;
    if (view.role && view.role !== 'owner') {
      throw new DomainError(
        ErrorCode.Forbidden,
        `your role in team ${view.name} is ${view.role}: only an owner deletes it`,
      );
    }
    const live = await liveResourcesOf(this.queries, teamId);
    if (live.length) {
      throw new DomainError(
        ErrorCode.InUse,
        `team ${view.name} still owns ${live.join(', ')}: terminate or delete them first`,
      );
    }
    const { revoked } = await this.commands.execute(
      Subjects.account.deleteTeam,
      { teamId, asOperator },
      actor,
    );
    await this.changed(
      teamId,
      revoked.map((k) => k.id),
    );
  }

  async members(principal: Principal, teamId: string): Promise<TeamMemberView[]> {
    await this.visible(principal, teamId);
    return (await this.teams.members(teamId)).map(toMemberView);
  }

  async addMember(
    principal: Principal,
    teamId: string,
    user: string,
    role: TeamRole,
  ): Promise<TeamMemberView> {
    const { actor, asOperator } = await this.acting(principal, teamId);
    return (
      await this.commands.execute(Subjects.account.addMember, { teamId, user, role, asOperator }, actor)
    ).member;
  }

  async setRole(
    principal: Principal,
    teamId: string,
    userId: string,
    role: TeamRole,
  ): Promise<TeamMemberView> {
    const { actor, asOperator } = await this.acting(principal, teamId);
    const changed = await this.commands.execute(
      Subjects.account.setMemberRole,
      { teamId, userId, role, asOperator },
      actor,
    );
    await this.changed(userId);
    return changed.member;
  }

  async removeMember(principal: Principal, teamId: string, userId: string): Promise<MemberChanged> {
    const { actor, asOperator } = await this.acting(principal, teamId);
    const removed = await this.commands.execute(
      Subjects.account.removeMember,
      { teamId, userId, asOperator },
      actor,
    );
    await this.changed(userId, removed.revokedKeyIds);
    return removed;
  }
}
