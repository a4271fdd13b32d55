import { Injectable } from '@nestjs/common';
import { DomainError, ErrorCode, Subjects, type AddMemberCommand, type MemberChanged } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { toMemberView } from '../account.mapper.js';
import { TeamMemberEntity } from '../team-member.entity.js';
import { actingOnTeam, mayGrant, mayManageTeam } from '../team-rules.js';
import { TeamsRepository } from '../teams.repository.js';
import { UsersRepository } from '../users.repository.js';

@Injectable()
export class AddMemberHandler {
  constructor(
    private readonly users: UsersRepository,
    private readonly teams: TeamsRepository,
  ) {}

  @CommandHandler(Subjects.account.addMember)
  async handle({
    envelope,
    payload,
    manager,
    now,
  }: CommandContext<AddMemberCommand>): Promise<MemberChanged> {
    const acting = await actingOnTeam(this.teams, payload, envelope.actor, manager);
    mayManageTeam(acting);
    mayGrant(acting, payload.role);
    const { team } = acting;
    const user = await this.users.findByIdOrName(payload.user, manager);
    if (!user) throw DomainError.notFound('user', payload.user);
    if (user.disabledAt) throw new DomainError(ErrorCode.InvalidState, `user ${user.name} is disabled`);
    const existing = await this.teams.member(team.id, user.id, manager);
    if (existing) {
      throw new DomainError(
        ErrorCode.Conflict,
        `${user.name} is already a member of team ${team.name}, as ${existing.role}: change the role instead`,
      );
    }
    const member = Object.assign(new TeamMemberEntity(), {
      teamId: team.id,
      userId: user.id,
      role: payload.role,
      addedAt: now,
    });
    await this.teams.insertMember(member, manager);
    return { teamId: team.id, member: toMemberView({ ...member, name: user.name }), revokedKeyIds: [] };
  }
}
