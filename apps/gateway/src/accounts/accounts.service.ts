import { Injectable } from '@nestjs/common';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { DomainError, ErrorCode } from '@app/contracts';
import { ApiKeyEntity } from './api-key.entity.js';
import type { ApiKeyScope } from './api-key-scope.js';
import { ApiKeysRepository } from './api-keys.repository.js';
import { UserEntity } from './user.entity.js';
import { UsersRepository } from './users.repository.js';

export const API_KEY_PREFIX = 'cpk_';
const KEY_SHAPE = /^cpk_[A-Za-z0-9_-]{43}$/;

export interface IssuedKey {
  /** The key itself: shown once, never stored. */
  key: string;
  record: ApiKeyEntity;
}

export interface Principal {
  user: UserEntity;
  key: ApiKeyEntity;
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Users and their API keys: the gateway owns both. */
@Injectable()
export class AccountsService {
  constructor(
    private readonly users: UsersRepository,
    private readonly keys: ApiKeysRepository,
  ) {}

  static looksLikeKey(value: string): boolean {
    return KEY_SHAPE.test(value);
  }

  async createUser(name: string, rateLimitExempt = false): Promise<UserEntity> {
    if (!/^[A-Za-z0-9._@-]{1,64}$/.test(name)) {
      throw new DomainError(ErrorCode.ValidationFailed, 'user name must be 1-64 of letters, digits, . _ @ -');
    }
    if (await this.users.findByIdOrName(name)) {
      throw new DomainError(ErrorCode.Conflict, `a user named ${name} already exists`);
    }
    const user = Object.assign(new UserEntity(), {
      id: `user_${randomUUID().replace(/-/g, '').slice(0, 20)}`,
      name,
      rateLimitExempt,
      createdAt: new Date(),
    });
    await this.users.insert(user);
    return user;
  }

  async createKey(
    userIdOrName: string,
    scope: ApiKeyScope,
    name = 'default',
    endpointIds: string[] = [],
  ): Promise<IssuedKey> {
    const user = await this.users.findByIdOrName(userIdOrName);
    if (!user) throw DomainError.notFound('user', userIdOrName);
    if (scope === 'endpoints' && !endpointIds.length) {
      throw new DomainError(
        ErrorCode.ValidationFailed,
        'a key of scope endpoints must name at least one endpoint',
      );
    }
    if (scope === 'worker' && endpointIds.length !== 1) {
      throw new DomainError(ErrorCode.ValidationFailed, 'a key of scope worker names exactly one endpoint');
    }
    if (scope !== 'endpoints' && scope !== 'worker' && endpointIds.length) {
      throw new DomainError(
        ErrorCode.ValidationFailed,
        'only keys of scope endpoints or worker name endpoints',
      );
    }
    const key = `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
    const record = Object.assign(new ApiKeyEntity(), {
      id: `key_${randomUUID().replace(/-/g, '').slice(0, 20)}`,
      userId: user.id,
      name,
      keyPrefix: key.slice(0, 12),
      keyHash: hashKey(key),
      scope,
      endpointIds,
      createdAt: new Date(),
      revokedAt: null,
    });
    await this.keys.insert(record);
    return { key, record };
  }

  /** The principal of a presented key, or why it is refused (unknown, revoked). */
  async authenticate(key: string): Promise<Principal | 'unknown' | 'revoked'> {
    if (!AccountsService.looksLikeKey(key)) return 'unknown';
    const record = await this.keys.findByHash(hashKey(key));
    if (!record) return 'unknown';
    if (record.revokedAt) return 'revoked';
    const user = await this.users.findById(record.userId);
    return user ? { user, key: record } : 'unknown';
  }

  /** The key of an endpoint's workers (RUNPOD_AI_API_KEY): scope `worker`, bound to that one endpoint. */
  issueWorkerKey(userId: string, endpointId: string): Promise<IssuedKey> {
    return this.createKey(userId, 'worker', `worker:${endpointId}`, [endpointId]);
  }

  /** Revokes the workers' keys of an endpoint (it was deleted); how many were still active. */
  revokeWorkerKeys(endpointId: string): Promise<number> {
    return this.keys.revokeWorkerKeys(endpointId, new Date());
  }

  async revokeKey(id: string): Promise<void> {
    if (!(await this.keys.revoke(id, new Date()))) {
      throw new DomainError(ErrorCode.NotFound, `no active API key ${id}`);
    }
  }

  listUsers(): Promise<UserEntity[]> {
    return this.users.list();
  }

  findUser(idOrName: string): Promise<UserEntity | null> {
    return this.users.findByIdOrName(idOrName);
  }

  /** Exempt users are never rate-limited and get no rate-limit headers; effective on their next request. */
  async setRateLimitExempt(idOrName: string, exempt: boolean): Promise<UserEntity> {
    const user = await this.users.findByIdOrName(idOrName);
    if (!user) throw DomainError.notFound('user', idOrName);
    await this.users.setRateLimitExempt(user.id, exempt);
    return Object.assign(user, { rateLimitExempt: exempt });
  }

  listKeys(userId?: string): Promise<ApiKeyEntity[]> {
    return this.keys.list(userId);
  }

  /** First run: an `admin` user with a full-access key, if there are no users yet. */
  async bootstrap(): Promise<IssuedKey | null> {
    if ((await this.users.count()) > 0) return null;
    const admin = await this.createUser('admin');
    return this.createKey(admin.id, 'full', 'bootstrap');
  }
}
