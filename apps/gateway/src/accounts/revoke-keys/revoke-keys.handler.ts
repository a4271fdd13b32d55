import { Injectable } from '@nestjs/common';
import { DomainError, ErrorCode, Subjects, type RevokeKeysCommand, type RevokedKeys } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { ApiKeysRepository } from '../api-keys.repository.js';
import { announceRevoked } from '../account-changes.js';

/**
 * Revokes one key (a holder's own: only a non-worker key they hold for that account; the keys CLI: any), or every
 * worker key of an endpoint (it was deleted). A holder learns nothing of keys not theirs: "not found".
 */
@Injectable()
export class RevokeKeysHandler {
  constructor(private readonly keys: ApiKeysRepository) {}

  @CommandHandler(Subjects.account.revokeKeys)
  async handle({ payload, manager, now, emit }: CommandContext<RevokeKeysCommand>): Promise<RevokedKeys> {
    let revoked;
    if (payload.workersOfEndpoint) {
      revoked = await this.keys.revokeWorkerKeys(payload.workersOfEndpoint, now, manager);
    } else if (!payload.keyId) {
      throw new DomainError(ErrorCode.BadRequest, 'name a key (keyId) or an endpoint (workersOfEndpoint)');
    } else if (payload.holder) {
      const account = payload.teamId ?? payload.holder;
      revoked = await this.keys.revokeHeld(payload.keyId, payload.holder, account, now, manager);
      if (!revoked.length) {
        throw new DomainError(ErrorCode.NotFound, `you have no active API key ${payload.keyId}`);
      }
    } else {
      revoked = await this.keys.revokeById(payload.keyId, now, manager);
      if (!revoked.length) throw new DomainError(ErrorCode.NotFound, `no active API key ${payload.keyId}`);
    }
    await announceRevoked(emit, revoked);
    return { revoked };
  }
}
