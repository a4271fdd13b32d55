import { Injectable } from '@nestjs/common';
import { Subjects, type MemberChanged, type SetMemberRoleCommand } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { toMemberView } from '../account.mapper.js';
import { actingOnTeam, namedMember, keepsAnOwner, mayGrant, mayManageTeam } from '../team-rules.js';
import { TeamsRepository } from '../teams.repository.js';

/** A member's new role; in force on every gateway replica within a second (the cached principals carry it). */
@Injectable()
export class SetMemberRoleHandler {
  constructor(private readonly teams: TeamsRepository) {}

  @CommandHandler(Subjects.account.setMemberRole)
  async handle({
    envelope,
    payload,
    manager,
    emit,
  }: CommandContext<SetMemberRoleCommand>): Promise<MemberChanged> {
    const acting = await actingOnTeam(this.teams, payload, envelope.actor, manager);
    mayManageTeam(acting);
    const { team } = acting;
    const member = await namedMember(this.teams, team, payload.userId, manager);
    mayGrant(acting, member.role);
    mayGrant(acting, payload.role);
    if (payload.role !== 'owner') await keepsAnOwner(this.teams, team, member, manager);
    await this.teams.setRole(team.id, member.userId, payload.role, manager);
    await emit(Subjects.account.changed, {
      userId: member.userId,
      revokedKeyIds: [],
      reason: 'team-changed',
    });
    return { teamId: team.id, member: toMemberView({ ...member, role: payload.role }), revokedKeyIds: [] };
  }
}
