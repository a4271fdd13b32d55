import { Injectable, Logger } from '@nestjs/common';
import { hash, randomBytes, randomUUID } from 'node:crypto';
import { type AccountChangedEvent, DomainError, ErrorCode, MAX_ACTIVE_API_KEYS } from '@app/contracts';
import { AccountEvents } from './account-events.js';
import { ApiKeyEntity } from './api-key.entity.js';
import { type ApiKeyScope, scopeCovers } from './api-key-scope.js';
import { ApiKeysRepository, type RevokedKey } from './api-keys.repository.js';
import { type Authentication, PrincipalCache } from './principal-cache.js';
import { UserEntity } from './user.entity.js';
import { UsersRepository } from './users.repository.js';

import type { Principal } from './principal.js';

export type { Principal } from './principal.js';

export const API_KEY_PREFIX = 'cpk_';
const KEY_SHAPE = /^cpk_[A-Za-z0-9_-]{43}$/;

export interface IssuedKey {
  /** The key itself: shown once, never stored. */
  key: string;
  record: ApiKeyEntity;
}

/** Once per request (the auth cache is keyed by it): the one-shot `hash` is about 5× cheaper than a Hash object. */
export function hashKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/** A new key and its record (not yet stored): the secret leaves only in the returned `key`. */
function newKey(userId: string, scope: ApiKeyScope, name: string, endpointIds: string[]): IssuedKey {
  // Rules between two fields (400, the interface's "conflicting rules"), each also as the one `errors` entry.
  const conflict = (message: string) => new DomainError(ErrorCode.BadRequest, message, [message]);
  if (scope === 'endpoints' && !endpointIds.length) {
    throw conflict('endpointIds: a key of scope endpoints must name at least one endpoint');
  }
  if (scope === 'worker' && endpointIds.length !== 1) {
    throw conflict('endpointIds: a key of scope worker names exactly one endpoint');
  }
  if (scope !== 'endpoints' && scope !== 'worker' && endpointIds.length) {
    throw conflict('endpointIds: only keys of scope endpoints or worker name endpoints');
  }
  const key = `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  const record = Object.assign(new ApiKeyEntity(), {
    id: `key_${randomUUID().replace(/-/g, '').slice(0, 20)}`,
    userId,
    name,
    keyPrefix: key.slice(0, 12),
    keyHash: hashKey(key),
    scope,
    endpointIds,
    createdAt: new Date(),
    revokedAt: null,
  });
  return { key, record };
}

/** Users and their API keys: the gateway owns both. */
@Injectable()
export class AccountsService {
  private readonly logger = new Logger('accounts');
  /** The lookups under way by key hash, with the cache's ticket they were started under. */
  private readonly lookups = new Map<string, { ticket: number; found: Promise<Authentication> }>();

  constructor(
    private readonly users: UsersRepository,
    private readonly keys: ApiKeysRepository,
    private readonly cache: PrincipalCache,
    private readonly events: AccountEvents,
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
    const issued = newKey(user.id, scope, name, endpointIds);
    await this.keys.insert(issued.record);
    return issued;
  }

  /**
   * A key the signed-in user makes for themselves (`POST /v2/account/api-keys`): only a key that may manage (`full`)
   * makes one, never of a wider scope than its own nor a worker key, and at most MAX_ACTIVE_API_KEYS are active.
   * The secret is hashed and stored exactly as the keys CLI's are; it is returned once and never logged.
   */
  async createOwnKey(
    creator: Principal,
    scope: ApiKeyScope,
    name: string,
    endpointIds: string[] = [],
  ): Promise<IssuedKey> {
    if (!scopeCovers(creator.key.scope, scope)) {
      throw new DomainError(
        ErrorCode.Forbidden,
        `a key of scope ${creator.key.scope} may not create a key of scope ${scope}`,
      );
    }
    const issued = newKey(creator.user.id, scope, name, endpointIds);
    if (!(await this.keys.insertCapped(issued.record, MAX_ACTIVE_API_KEYS))) {
      throw new DomainError(
        ErrorCode.Conflict,
        `you already have ${MAX_ACTIVE_API_KEYS} active API keys, the most one user may hold: revoke one first`,
      );
    }
    return issued;
  }

  /**
   * Revokes one of the user's own keys (`DELETE /v2/account/api-keys/{id}`), on every gateway replica at once.
   * Another user's key, a worker key, an unknown or already revoked id are all "not found": the answer does not
   * tell whether a key exists.
   */
  async revokeOwnKey(userId: string, id: string): Promise<void> {
    const revoked = await this.keys.revokeOwn(id, userId, new Date());
    if (!revoked) throw new DomainError(ErrorCode.NotFound, `you have no active API key ${id}`);
    await this.keysRevoked([revoked]);
  }

  /**
   * The principal of a presented key, or why it is refused (unknown, revoked): from the cache when it has the
   * answer (see PrincipalCache for what is cached, how long, and how a change reaches every replica), then
   * without a promise: the edge's hot routes authenticate every request.
   */
  authenticate(key: string): Authentication | Promise<Authentication> {
    if (!AccountsService.looksLikeKey(key)) return 'unknown';
    const keyHash = hashKey(key);
    const cached = this.cache.get(keyHash);
    if (cached !== undefined) {
      if (this.cache.refreshDue(keyHash) && !this.lookups.has(keyHash)) {
        // A failed renewal changes nothing: the entry expires as it would have, and the next request looks up.
        this.lookUpAndStore(keyHash).catch(() => undefined);
      }
      return cached;
    }
    // The requests missing together share one lookup, unless an invalidation came since it started.
    const under = this.lookups.get(keyHash);
    if (this.cache.enabled && under?.ticket === this.cache.ticket()) return under.found;
    return this.lookUpAndStore(keyHash);
  }

  private lookUpAndStore(keyHash: string): Promise<Authentication> {
    const ticket = this.cache.ticket();
    const found = this.lookUp(keyHash).then((value) => {
      this.cache.set(keyHash, value, ticket);
      return value;
    });
    const entry = { ticket, found };
    this.lookups.set(keyHash, entry);
    const forget = () => {
      if (this.lookups.get(keyHash) === entry) this.lookups.delete(keyHash);
    };
    found.then(forget, forget);
    return found;
  }

  private async lookUp(keyHash: string): Promise<Authentication> {
    const found = await this.keys.findWithUserByHash(keyHash);
    if (!found) return 'unknown';
    if (found.key.revokedAt) return 'revoked';
    return found.user
      ? {
          user: found.user,
          key: found.key,
          account: { id: found.user.id, name: found.user.name, kind: 'user' },
          role: 'owner',
        }
      : 'unknown';
  }

  /** The key of an endpoint's workers (RUNPOD_AI_API_KEY): scope `worker`, bound to that one endpoint. */
  issueWorkerKey(userId: string, endpointId: string): Promise<IssuedKey> {
    return this.createKey(userId, 'worker', `worker:${endpointId}`, [endpointId]);
  }

  /** Revokes the workers' keys of an endpoint (it was deleted); how many were still active. */
  async revokeWorkerKeys(endpointId: string): Promise<number> {
    const revoked = await this.keys.revokeWorkerKeys(endpointId, new Date());
    await this.keysRevoked(revoked);
    return revoked.length;
  }

  /** Revokes a key; every gateway replica refuses it within a second (AUTH_CACHE_TTL_MS without NATS). */
  async revokeKey(id: string): Promise<void> {
    const revoked = await this.keys.revoke(id, new Date());
    if (!revoked) throw new DomainError(ErrorCode.NotFound, `no active API key ${id}`);
    await this.keysRevoked([revoked]);
  }

  private async keysRevoked(revoked: RevokedKey[]): Promise<void> {
    const byUser = new Map<string, string[]>();
    for (const key of revoked) byUser.set(key.userId, [...(byUser.get(key.userId) ?? []), key.id]);
    for (const [userId, revokedKeyIds] of byUser) {
      await this.changed({ userId, revokedKeyIds, reason: 'key-revoked' });
    }
  }

  /** Drops this replica's entries at once (no round trip through NATS for our own change), then tells the rest. */
  private async changed(event: AccountChangedEvent): Promise<void> {
    this.cache.dropUser(event.userId);
    if (!(await this.events.changed(event))) {
      this.logger.warn(
        `the gateway replicas were not told that user ${event.userId} changed (${event.reason}); ` +
          'they notice once their cached entry expires (AUTH_CACHE_TTL_MS)',
      );
    }
  }

  listUsers(): Promise<UserEntity[]> {
    return this.users.list();
  }

  findUser(idOrName: string): Promise<UserEntity | null> {
    return this.users.findByIdOrName(idOrName);
  }

  /** Exempt users are never rate-limited and get no rate-limit headers; in force on every replica within a second. */
  async setRateLimitExempt(idOrName: string, exempt: boolean): Promise<UserEntity> {
    const user = await this.users.findByIdOrName(idOrName);
    if (!user) throw DomainError.notFound('user', idOrName);
    await this.users.setRateLimitExempt(user.id, exempt);
    await this.changed({ userId: user.id, revokedKeyIds: [], reason: 'user-changed' });
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
