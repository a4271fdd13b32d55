import { Injectable } from '@nestjs/common';
import { DomainError, ErrorCode, Subjects, type RevokedKeys, type TeamRefCommand } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { ApiKeysRepository } from '../api-keys.repository.js';
import { actingOnTeam } from '../team-rules.js';
import { TeamsRepository } from '../teams.repository.js';

/**
 * Deletes a team: its owners (or an operator) only; its members and keys go with it. That it owns no live resource
 * is the owner apps' to say: the gateway asks them before it issues this command (teams.service.ts).
 */
@Injectable()
export class DeleteTeamHandler {
  constructor(
    private readonly teams: TeamsRepository,
    private readonly keys: ApiKeysRepository,
  ) {}

  @CommandHandler(Subjects.account.deleteTeam)
  async handle({
    envelope,
    payload,
    manager,
    now,
    emit,
  }: CommandContext<TeamRefCommand>): Promise<RevokedKeys> {
    const { team, role } = await actingOnTeam(this.teams, payload, envelope.actor, manager);
    if (role !== 'owner' && role !== 'operator') {
      throw new DomainError(
        ErrorCode.Forbidden,
        `your role in team ${team.name} is ${role}: only an owner deletes it`,
      );
    }
    const revoked = await this.keys.revokeAccountKeys(team.id, now, manager);
    await this.teams.deleteTeam(team.id, manager);
    await emit(Subjects.account.changed, {
      userId: team.id,
      revokedKeyIds: revoked.map((k) => k.id),
      reason: 'team-changed',
    });
    return { revoked };
  }
}
