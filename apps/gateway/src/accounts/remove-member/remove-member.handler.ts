import { Injectable } from '@nestjs/common';
import { Subjects, personOf, type MemberChanged, type RemoveMemberCommand } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { announceRevoked } from '../account-changes.js';
import { toMemberView } from '../account.mapper.js';
import { ApiKeysRepository } from '../api-keys.repository.js';
import { actingOnTeam, namedMember, keepsAnOwner, mayGrant, mayManageTeam } from '../team-rules.js';
import { TeamsRepository } from '../teams.repository.js';

/**
 * A member leaves (any member may leave) or is removed (by an owner or admin). Every key they hold for the team is
 * revoked with it, so they stop working on every gateway replica within a second; the last owner stays.
 */
@Injectable()
export class RemoveMemberHandler {
  constructor(
    private readonly teams: TeamsRepository,
    private readonly keys: ApiKeysRepository,
  ) {}

  @CommandHandler(Subjects.account.removeMember)
  async handle({
    envelope,
    payload,
    manager,
    now,
    emit,
  }: CommandContext<RemoveMemberCommand>): Promise<MemberChanged> {
    const acting = await actingOnTeam(this.teams, payload, envelope.actor, manager);
    const { team } = acting;
    const member = await namedMember(this.teams, team, payload.userId, manager);
    const leaving = member.userId === personOf(envelope.actor) && !payload.asOperator;
    if (!leaving) {
      mayManageTeam(acting);
      mayGrant(acting, member.role);
    }
    await keepsAnOwner(this.teams, team, member, manager);
    await this.teams.removeMember(team.id, member.userId, manager);
    const revoked = await this.keys.revokeMemberKeys(member.userId, team.id, now, manager);
    await announceRevoked(emit, revoked);
    await emit(
      Subjects.account.changed,
      { userId: member.userId, revokedKeyIds: [], reason: 'team-changed' },
      'member',
    );
    return { teamId: team.id, member: toMemberView(member), revokedKeyIds: revoked.map((k) => k.id) };
  }
}
