import { Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCode,
  Subjects,
  deriveId,
  roleMay,
  type CreateKeyCommand,
  type KeyRecordView,
} from '@app/contracts';
import type { EntityManager } from 'typeorm';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { toKeyRecordView } from '../account.mapper.js';
import { ApiKeyEntity } from '../api-key.entity.js';
import { ApiKeysRepository } from '../api-keys.repository.js';
import { TeamsRepository } from '../teams.repository.js';
import { UsersRepository } from '../users.repository.js';

/** Rules between two fields (400, the interface's "conflicting rules"), each also as the one `errors` entry. */
function conflict(message: string): DomainError {
  return new DomainError(ErrorCode.BadRequest, message, [message]);
}

/** The endpoint ids a scope takes: `endpoints` at least one, `worker` exactly one, the others none. */
function checkEndpoints({ scope, endpointIds }: CreateKeyCommand): void {
  if (scope === 'endpoints' && !endpointIds.length) {
    throw conflict('endpointIds: a key of scope endpoints must name at least one endpoint');
  }
  if (scope === 'worker' && endpointIds.length !== 1) {
    throw conflict('endpointIds: a key of scope worker names exactly one endpoint');
  }
  if (scope !== 'endpoints' && scope !== 'worker' && endpointIds.length) {
    throw conflict('endpointIds: only keys of scope endpoints or worker name endpoints');
  }
}

/**
 * A key's record: held by a user, acting for their own account or one of their teams. The secret was made by the
 * issuer; only its hash and prefix are recorded.
 */
@Injectable()
export class CreateKeyHandler {
  constructor(
    private readonly users: UsersRepository,
    private readonly teams: TeamsRepository,
    private readonly keys: ApiKeysRepository,
  ) {}

  @CommandHandler(Subjects.account.createKey)
  async handle({
    envelope,
    payload,
    manager,
    now,
  }: CommandContext<CreateKeyCommand>): Promise<KeyRecordView> {
    checkEndpoints(payload);
    const holder = await this.users.findByIdOrName(payload.user, manager);
    if (!holder) {
      // An endpoint's workers' key is held by the endpoint's account itself (ADR 34), a team's by the team, so a
      // member leaving never stops its workers. Without this a team could create no endpoint at all: the key its
      // workers need was refused as "user team_… does not exist" (found by test/e2e/role-matrix.e2e-spec.ts).
      const team =
        payload.scope === 'worker' && !payload.teamId && (await this.teams.findTeam(payload.user, manager));
      if (!team) throw DomainError.notFound('user', payload.user);
      return this.insert(envelope.commandId, payload, team.id, team.id, now, manager);
    }
    if (holder.disabledAt) throw new DomainError(ErrorCode.InvalidState, `user ${holder.name} is disabled`);
    let accountId = holder.id;
    if (payload.teamId) {
      if (payload.scope === 'operator') {
        throw conflict('teamId: an operator key acts for its holder, not for a team');
      }
      const team = await this.teams.findTeam(payload.teamId, manager);
      const member = team && (await this.teams.member(team.id, holder.id, manager));
      if (!team || !member) {
        throw new DomainError(ErrorCode.NotFound, `${holder.name} is not a member of team ${payload.teamId}`);
      }
      if (payload.scope === 'endpoints' && !roleMay(member.role, 'requests', 'write')) {
        throw new DomainError(
          ErrorCode.Forbidden,
          `your role in team ${team.name} is ${member.role}: it sends no requests to endpoints`,
        );
      }
      accountId = team.id;
    }
    if (payload.cap && (await this.keys.countActiveLocked(holder.id, accountId, manager)) >= payload.cap) {
      throw new DomainError(
        ErrorCode.Conflict,
        `you already have ${payload.cap} active API keys for this account, the most one user may hold: revoke one first`,
      );
    }
    return this.insert(envelope.commandId, payload, holder.id, accountId, now, manager);
  }

  private async insert(
    commandId: string,
    payload: CreateKeyCommand,
    userId: string,
    accountId: string,
    now: Date,
    manager: EntityManager,
  ): Promise<KeyRecordView> {
    const key = Object.assign(new ApiKeyEntity(), {
      id: `key_${deriveId(commandId, 'key')}`,
      userId,
      accountId,
      name: payload.name,
      keyPrefix: payload.keyPrefix,
      keyHash: payload.keyHash,
      scope: payload.scope,
      endpointIds: payload.endpointIds,
      createdAt: now,
      revokedAt: null,
    } satisfies ApiKeyEntity);
    await this.keys.insert(key, manager);
    return toKeyRecordView(key);
  }
}
