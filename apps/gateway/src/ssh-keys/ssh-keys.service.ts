import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DomainError, ErrorCode, type Actor, type CreateSshKeyDto, type SshKeyView } from '@app/contracts';
import { SshKeyEntity } from '../accounts/ssh-key.entity.js';
import { SshKeysRepository } from '../accounts/ssh-keys.repository.js';
import { parseSshPublicKey } from './ssh-public-key.js';

/** The most keys one account may register (every key travels into each member pod's PUBLIC_KEY). */
export const MAX_SSH_KEYS = 10;

function toView(entity: SshKeyEntity): SshKeyView {
  return {
    id: entity.id,
    name: entity.name,
    type: entity.type,
    fingerprint: entity.fingerprint,
    publicKey: entity.publicKey,
    createdAt: entity.createdAt.toISOString(),
  };
}

/** The account's SSH public keys: the gateway owns accounts, so it keeps them and hands them to cluster creates. */
@Injectable()
export class SshKeysService {
  constructor(private readonly keys: SshKeysRepository) {}

  async create(dto: CreateSshKeyDto, actor: Actor): Promise<SshKeyView> {
    const parsed = parseSshPublicKey(dto.publicKey);
    if (!parsed) {
      throw new DomainError(ErrorCode.ValidationFailed, 'the request failed validation', [
        'publicKey must be a valid OpenSSH public key: its key data does not decode to a key of the named type',
      ]);
    }
    if (await this.keys.findByFingerprint(actor.userId, parsed.fingerprint)) {
      throw new DomainError(ErrorCode.Conflict, `this SSH key (${parsed.fingerprint}) is already registered`);
    }
    if ((await this.keys.countByUser(actor.userId)) >= MAX_SSH_KEYS) {
      throw new DomainError(
        ErrorCode.Conflict,
        `an account may have at most ${MAX_SSH_KEYS} SSH keys; delete one first`,
      );
    }
    const entity = Object.assign(new SshKeyEntity(), {
      id: `sshkey_${randomUUID().replace(/-/g, '').slice(0, 20)}`,
      userId: actor.userId,
      name: dto.name ?? (parsed.comment || parsed.type),
      type: parsed.type,
      fingerprint: parsed.fingerprint,
      publicKey: parsed.line,
      createdAt: new Date(),
    });
    await this.keys.insert(entity);
    return toView(entity);
  }

  async list(actor: Actor): Promise<SshKeyView[]> {
    return (await this.keys.listByUser(actor.userId)).map(toView);
  }

  async delete(id: string, actor: Actor): Promise<void> {
    const key = await this.keys.findById(id);
    if (!key) throw DomainError.notFound('SSH key', id);
    if (key.userId !== actor.userId)
      throw new DomainError(ErrorCode.Forbidden, `SSH key ${id} belongs to another user`);
    await this.keys.delete(id);
  }

  /** The public key lines of the account, oldest first (what startSsh injects as PUBLIC_KEY). */
  async publicKeysOf(userId: string): Promise<string[]> {
    return (await this.keys.listByUser(userId)).map((k) => k.publicKey);
  }
}
