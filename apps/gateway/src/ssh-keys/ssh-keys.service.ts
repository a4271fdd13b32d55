import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  DomainError,
  ErrorCode,
  MAX_SSH_KEYS,
  type Actor,
  type CreateSshKeyDto,
  type SshKeySet,
  type SshKeyView,
} from '@app/contracts';
import { SshKeyEntity } from '../accounts/ssh-key.entity.js';
import { SshKeysRepository } from '../accounts/ssh-keys.repository.js';
import { parseSshPublicKey, type ParsedSshKey } from './ssh-public-key.js';

function invalidKeys(fields: string[]): DomainError {
  return new DomainError(
    ErrorCode.ValidationFailed,
    'the request failed validation',
    fields.map(
      (f) =>
        `${f} must be a valid OpenSSH public key: its key data does not decode to a key of the named type`,
    ),
  );
}

function newEntity(
  userId: string,
  parsed: ParsedSshKey,
  name?: string,
  createdAt = new Date(),
): SshKeyEntity {
  return Object.assign(new SshKeyEntity(), {
    id: `sshkey_${randomUUID().replace(/-/g, '').slice(0, 20)}`,
    userId,
    name: name ?? (parsed.comment || parsed.type),
    type: parsed.type,
    fingerprint: parsed.fingerprint,
    publicKey: parsed.line,
    createdAt,
  });
}

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
    if (!parsed) throw invalidKeys(['publicKey']);
    if (await this.keys.findByFingerprint(actor.userId, parsed.fingerprint)) {
      throw new DomainError(ErrorCode.Conflict, `this SSH key (${parsed.fingerprint}) is already registered`);
    }
    if ((await this.keys.countByUser(actor.userId)) >= MAX_SSH_KEYS) {
      throw new DomainError(
        ErrorCode.Conflict,
        `an account may have at most ${MAX_SSH_KEYS} SSH keys; delete one first`,
      );
    }
    const entity = newEntity(actor.userId, parsed, dto.name);
    await this.keys.insert(entity);
    return toView(entity);
  }

  /**
   * Replaces the account's set (`PUT /v2/account/ssh-keys`, GraphQL `updateUserSettings(pubKey)`). Keys already
   * registered keep their id, name and date; a key listed twice counts once; every line is checked first, so a
   * bad one changes nothing (422 naming it).
   */
  async replace(lines: string[], actor: Actor): Promise<SshKeySet> {
    const parsed = lines.map((line) => parseSshPublicKey(line));
    const bad = parsed.flatMap((p, i) => (p ? [] : [`keys.${i}`]));
    if (bad.length) throw invalidKeys(bad);
    const wanted = new Map((parsed as ParsedSshKey[]).map((p) => [p.fingerprint, p]));
    if (wanted.size > MAX_SSH_KEYS) {
      throw new DomainError(ErrorCode.ValidationFailed, 'the request failed validation', [
        `keys must list at most ${MAX_SSH_KEYS} distinct keys`,
      ]);
    }
    const existing = await this.keys.listByUser(actor.userId);
    const keep = existing.filter((k) => wanted.has(k.fingerprint));
    const known = new Set(keep.map((k) => k.fingerprint));
    // One millisecond apart, so new keys read back (oldest first, after the kept ones) in the order given.
    const now = Date.now();
    const add = [...wanted.values()]
      .filter((p) => !known.has(p.fingerprint))
      .map((p, i) => newEntity(actor.userId, p, undefined, new Date(now + i)));
    await this.keys.replaceForUser(
      actor.userId,
      keep.map((k) => k.id),
      add,
    );
    return this.keySet(actor);
  }

  /** The account's keys as authorized_keys lines, oldest first. */
  async keySet(actor: Actor): Promise<SshKeySet> {
    return { keys: await this.publicKeysOf(actor.userId) };
  }

  async list(actor: Actor): Promise<SshKeyView[]> {
    return (await this.keys.listByUser(actor.userId)).map(toView);
  }

  async delete(id: string, actor: Actor): Promise<void> {
    const key = await this.keys.findById(id);
    if (!key) throw DomainError.notFound('SSH key', id);
    if (key.userId !== actor.userId) {
      throw new DomainError(ErrorCode.Forbidden, `SSH key ${id} belongs to another user`);
    }
    await this.keys.delete(id);
  }

  /** The public key lines of the account, oldest first (what startSsh injects as PUBLIC_KEY). */
  async publicKeysOf(userId: string): Promise<string[]> {
    return (await this.keys.listByUser(userId)).map((k) => k.publicKey);
  }
}
