import { Injectable } from '@nestjs/common';
import { DomainError, ErrorCode, Subjects, type DeleteUserCommand, type RevokedKeys } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { ApiKeysRepository } from '../api-keys.repository.js';
import { TeamsRepository } from '../teams.repository.js';
import { UsersRepository } from '../users.repository.js';

/**
 * Deletes a user: their keys revoked, their memberships gone. Refused while a team would be left without an owner.
 * (Whether their own account still owns live resources is the owner apps' to say: the keys CLI asks before.)
 */
@Injectable()
export class DeleteUserHandler {
  constructor(
    private readonly users: UsersRepository,
    private readonly teams: TeamsRepository,
    private readonly keys: ApiKeysRepository,
  ) {}

  @CommandHandler(Subjects.account.deleteUser)
  async handle({ payload, manager, now, emit }: CommandContext<DeleteUserCommand>): Promise<RevokedKeys> {
    const user = await this.users.findByIdOrName(payload.user, manager);
    if (!user) throw DomainError.notFound('user', payload.user);
    const memberships = await this.teams.memberships(user.id, manager);
    const lastOwnerOf: string[] = [];
    for (const membership of memberships) {
      const team = await this.teams.lockTeam(membership.teamId, manager);
      if (team && membership.role === 'owner' && (await this.teams.countOwners(team.id, manager)) === 1) {
        lastOwnerOf.push(team.name);
      }
    }
    if (lastOwnerOf.length) {
      throw new DomainError(
        ErrorCode.InvalidState,
        `${user.name} is the last owner of team(s) ${lastOwnerOf.join(', ')}: ` +
          'make another member owner, or delete the team, first',
      );
    }
    for (const membership of memberships) await this.teams.removeMember(membership.teamId, user.id, manager);
    const revoked = await this.keys.revokeAccountKeys(user.id, now, manager);
    await this.users.delete(user.id, manager);
    await emit(Subjects.account.changed, {
      userId: user.id,
      revokedKeyIds: revoked.map((k) => k.id),
      reason: 'user-changed',
    });
    return { revoked };
  }
}
