import { Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCode,
  Subjects,
  deriveId,
  personOf,
  type CreateTeamCommand,
  type TeamView,
} from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { TeamMemberEntity } from '../team-member.entity.js';
import { freeAccountName } from '../team-rules.js';
import { TeamEntity } from '../team.entity.js';
import { TeamsRepository } from '../teams.repository.js';
import { UsersRepository } from '../users.repository.js';

/**
 * A team, its creator its first owner. The platform (a system actor: single sign-on's group mapping) makes a team
 * with no member yet; the members its mapping names join it, and operators manage it.
 */
@Injectable()
export class CreateTeamHandler {
  constructor(
    private readonly users: UsersRepository,
    private readonly teams: TeamsRepository,
  ) {}

  @CommandHandler(Subjects.account.createTeam)
  async handle({ envelope, payload, manager, now }: CommandContext<CreateTeamCommand>): Promise<TeamView> {
    const system = envelope.actor.kind === 'system';
    const creator = system ? null : await this.users.findById(personOf(envelope.actor), manager);
    if (!system && !creator) throw new DomainError(ErrorCode.Forbidden, 'only a user creates a team');
    await freeAccountName(this.users, this.teams, payload.name, manager);
    const team = Object.assign(new TeamEntity(), {
      id: `team_${deriveId(envelope.commandId, 'team')}`,
      name: payload.name,
      createdAt: now,
    } satisfies TeamEntity);
    await this.teams.insertTeam(team, manager);
    if (!creator) return { id: team.id, name: team.name, createdAt: now.toISOString(), members: 0 };
    await this.teams.insertMember(
      Object.assign(new TeamMemberEntity(), {
        teamId: team.id,
        userId: creator.id,
        role: 'owner',
        addedAt: now,
      }),
      manager,
    );
    return { id: team.id, name: team.name, createdAt: now.toISOString(), role: 'owner', members: 1 };
  }
}
