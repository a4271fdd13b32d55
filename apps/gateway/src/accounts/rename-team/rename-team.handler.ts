import { Injectable } from '@nestjs/common';
import { Subjects, type RenameTeamCommand, type TeamView } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { actingOnTeam, freeAccountName, mayManageTeam } from '../team-rules.js';
import { TeamsRepository } from '../teams.repository.js';
import { UsersRepository } from '../users.repository.js';

@Injectable()
export class RenameTeamHandler {
  constructor(
    private readonly users: UsersRepository,
    private readonly teams: TeamsRepository,
  ) {}

  @CommandHandler(Subjects.account.renameTeam)
  async handle({ envelope, payload, manager, emit }: CommandContext<RenameTeamCommand>): Promise<TeamView> {
    const acting = await actingOnTeam(this.teams, payload, envelope.actor, manager);
    mayManageTeam(acting);
    const { team } = acting;
    if (team.name !== payload.name) {
      await freeAccountName(this.users, this.teams, payload.name, manager);
      await this.teams.renameTeam(team.id, payload.name, manager);
    }
    // Cached principals carry the team's name.
    await emit(Subjects.account.changed, { userId: team.id, revokedKeyIds: [], reason: 'team-changed' });
    const members = await this.teams.members(team.id, manager);
    return {
      id: team.id,
      name: payload.name,
      createdAt: team.createdAt.toISOString(),
      ...(acting.role === 'operator' ? {} : { role: acting.role }),
      members: members.length,
    };
  }
}
