import { Injectable, Logger } from '@nestjs/common';
import {
  type AccountChangedEvent,
  type Actor,
  type ApiKeyScope,
  type KeyRecordView,
  type RevokedKeys,
  type UserView,
  DomainError,
  ErrorCode,
  MAX_ACTIVE_API_KEYS,
  Subjects,
} from '@app/contracts';
import { AccountCommands } from './account-commands.js';
import { hashKey, KEY_SHAPE, newSecret, OPERATOR_ACTOR, principalOf } from './account-keys.js';
import { AccountEvents } from './account-events.js';
import { ApiKeyEntity } from './api-key.entity.js';
import { scopeCovers } from './api-key-scope.js';
import { ApiKeysRepository } from './api-keys.repository.js';
import { type Authentication, PrincipalCache } from './principal-cache.js';
import type { TeamEntity } from './team.entity.js';
import { TeamsRepository } from './teams.repository.js';
import { UserEntity } from './user.entity.js';
import { UsersRepository } from './users.repository.js';

import type { Principal } from './principal.js';

export type { Principal } from './principal.js';

export { API_KEY_PREFIX, hashKey, OPERATOR_ACTOR, principalOf } from './account-keys.js';

export interface IssuedKey {
  /** The key itself: shown once, never stored, never on the bus. */
  key: string;
  record: KeyRecordView;
}

/** Users, teams' keys and their authentication: the gateway owns them; every change is an `account.cmd.*`. */
@Injectable()
export class AccountsService {
  private readonly logger = new Logger('accounts');
  /** The lookups under way by key hash, with the cache's ticket they were started under. */
  private readonly lookups = new Map<string, { ticket: number; found: Promise<Authentication> }>();

  constructor(
    private readonly users: UsersRepository,
    private readonly teams: TeamsRepository,
    private readonly keys: ApiKeysRepository,
    private readonly cache: PrincipalCache,
    private readonly events: AccountEvents,
    private readonly commands: AccountCommands,
  ) {}

  static looksLikeKey(value: string): boolean {
    return KEY_SHAPE.test(value);
  }

  createUser(name: string, rateLimitExempt = false, actor: Actor = OPERATOR_ACTOR): Promise<UserView> {
    return this.commands.execute(Subjects.account.createUser, { name, rateLimitExempt }, actor);
  }

  /** Issues a key (the keys CLI: any scope but worker, for the user's own account or one of their teams). */
  async createKey(
    user: string,
    scope: ApiKeyScope,
    name = 'default',
    endpointIds: string[] = [],
    options: { teamId?: string; cap?: number; actor?: Actor } = {},
  ): Promise<IssuedKey> {
    const { key, keyHash, keyPrefix } = newSecret();
    const record = await this.commands.execute(
      Subjects.account.createKey,
      { user, scope, name, endpointIds, keyHash, keyPrefix, teamId: options.teamId, cap: options.cap },
      options.actor ?? OPERATOR_ACTOR,
    );
    return { key, record };
  }

  /**
   * A key the signed-in user makes for themselves (`POST /v2/account/api-keys`): for the account of the key they
   * call with, or `teamId` (a team they are a member of); only a key that may manage makes one, never of a wider
   * scope than its own nor a worker key, and at most MAX_ACTIVE_API_KEYS are active per account.
   */
  createOwnKey(
    creator: Principal,
    actor: Actor,
    scope: ApiKeyScope,
    name: string,
    endpointIds: string[] = [],
    teamId?: string,
  ): Promise<IssuedKey> {
    if (!scopeCovers(creator.key.scope, scope)) {
      throw new DomainError(
        ErrorCode.Forbidden,
        `a key of scope ${creator.key.scope} may not create a key of scope ${scope}`,
      );
    }
    const team = teamId ?? (creator.account.kind === 'team' ? creator.account.id : undefined);
    return this.createKey(creator.user.id, scope, name, endpointIds, {
      teamId: team,
      cap: MAX_ACTIVE_API_KEYS,
      actor,
    });
  }

  /** Revokes one of the caller's own keys for the account they act for; anything else is "not found". */
  async revokeOwnKey(principal: Principal, actor: Actor, id: string): Promise<void> {
    const teamId = principal.account.kind === 'team' ? principal.account.id : undefined;
    const { revoked } = await this.commands.execute(
      Subjects.account.revokeKeys,
      { keyId: id, holder: principal.user.id, teamId },
      actor,
    );
    await this.dropRevoked(revoked);
  }

  /**
   * The principal of a presented key, or why it is refused (unknown, revoked, disabled): from the cache when it has
   * the answer (see PrincipalCache for what is cached, how long, and how a change reaches every replica), then
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
    const found = this.keys.findWithUserByHash(keyHash).then((value) => {
      const answer = principalOf(value);
      this.cache.set(keyHash, answer, ticket);
      return answer;
    });
    const entry = { ticket, found };
    this.lookups.set(keyHash, entry);
    const forget = () => {
      if (this.lookups.get(keyHash) === entry) this.lookups.delete(keyHash);
    };
    found.then(forget, forget);
    return found;
  }

  /** The key of an endpoint's workers (RUNPOD_AI_API_KEY): scope `worker`, held by the endpoint's account. */
  issueWorkerKey(actor: Actor, endpointId: string): Promise<IssuedKey> {
    return this.createKey(actor.userId, 'worker', `worker:${endpointId}`, [endpointId], { actor });
  }

  /** Revokes the workers' keys of an endpoint (it was deleted); how many were still active. */
  async revokeWorkerKeys(endpointId: string, actor: Actor): Promise<number> {
    const { revoked } = await this.commands.execute(
      Subjects.account.revokeKeys,
      { workersOfEndpoint: endpointId },
      actor,
    );
    await this.dropRevoked(revoked);
    return revoked.length;
  }

  /** Revokes any key (the keys CLI); every gateway replica refuses it within a second. */
  async revokeKey(id: string, actor: Actor = OPERATOR_ACTOR): Promise<RevokedKeys> {
    const result = await this.commands.execute(Subjects.account.revokeKeys, { keyId: id }, actor);
    await this.dropRevoked(result.revoked);
    return result;
  }

  /** Holders of revoked keys: dropped here at once, announced to the other replicas (announce). */
  private async dropRevoked(revoked: RevokedKeys['revoked']): Promise<void> {
    await this.announce(
      [...new Set(revoked.map((k) => k.userId))].map((userId) => ({
        userId,
        revokedKeyIds: revoked.filter((k) => k.userId === userId).map((k) => k.id),
        reason: 'key-revoked' as const,
      })),
    );
  }

  /**
   * After an account command committed: this replica drops the principals at once, and the others hear it on core
   * NATS before the caller gets its answer, as before teams. The command's own `account.evt.changed` (its outbox)
   * is the durable path, for a replica that missed this one.
   */
  async announce(events: AccountChangedEvent[]): Promise<void> {
    for (const event of events) await this.changed(event, true);
  }

  /** This replica at once; with `tellOthers`, the other replicas on core NATS too. */
  async changed(event: AccountChangedEvent, tellOthers = false): Promise<void> {
    this.cache.dropUser(event.userId);
    if (tellOthers && !(await this.events.changed(event))) {
      this.logger.warn(
        `the gateway replicas were not told that ${event.userId} changed (${event.reason}); ` +
          'they notice once their cached entry expires (AUTH_CACHE_TTL_MS), or hear the recorded event',
      );
    }
  }

  listUsers(): Promise<UserEntity[]> {
    return this.users.list();
  }

  findUser(idOrName: string): Promise<UserEntity | null> {
    return this.users.findByIdOrName(idOrName);
  }

  findTeam(idOrName: string): Promise<TeamEntity | null> {
    return this.teams.findTeam(idOrName);
  }

  /** A user's or a team's account by id or name (spend limits and rate limits are an account's). */
  async findAccount(idOrName: string): Promise<{ id: string; name: string } | null> {
    return (await this.users.findByIdOrName(idOrName)) ?? (await this.teams.findTeam(idOrName));
  }

  /** Exempt users are never rate-limited and get no rate-limit headers; in force on every replica within a second. */
  async updateUser(
    idOrName: string,
    change: { rateLimitExempt?: boolean; disabled?: boolean },
  ): Promise<UserView> {
    const user = await this.commands.execute(
      Subjects.account.updateUser,
      { user: idOrName, ...change },
      OPERATOR_ACTOR,
    );
    await this.changed({ userId: user.id, revokedKeyIds: [], reason: 'user-changed' }, true);
    return user;
  }

  async deleteUser(idOrName: string): Promise<RevokedKeys> {
    const user = await this.users.findByIdOrName(idOrName);
    if (!user) throw DomainError.notFound('user', idOrName);
    const result = await this.commands.execute(
      Subjects.account.deleteUser,
      { user: user.id },
      OPERATOR_ACTOR,
    );
    await this.changed({ userId: user.id, revokedKeyIds: [], reason: 'user-changed' }, true);
    return result;
  }

  /** Keys held by a user (every account), or acting for an account. */
  listKeys(filter: { userId?: string; accountId?: string } = {}): Promise<ApiKeyEntity[]> {
    return this.keys.list(filter);
  }

  /** First run: an `admin` user with an operator key, if there are no users yet. */
  async bootstrap(): Promise<IssuedKey | null> {
    if ((await this.users.count()) > 0) return null;
    const admin = await this.createUser('admin');
    return this.createKey(admin.id, 'operator', 'bootstrap');
  }
}
