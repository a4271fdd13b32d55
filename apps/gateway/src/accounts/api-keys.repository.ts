import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { joinedEntity, preparedQuery, type JoinedEntity } from '@app/database';
import type { TeamRole } from '@app/contracts';
import { ApiKeyEntity } from './api-key.entity.js';
import { TeamMemberEntity } from './team-member.entity.js';
import { TeamEntity } from './team.entity.js';
import { UserEntity } from './user.entity.js';

/** A presented key's record, its user (null if gone) and, for a team key, the team and the holder's role there. */
export interface KeyWithUser {
  key: ApiKeyEntity;
  user: UserEntity | null;
  team: { id: string; name: string; role: TeamRole | null } | null;
}

export interface RevokedKey {
  id: string;
  userId: string;
  accountId: string;
}

@Injectable()
export class ApiKeysRepository {
  private readonly keyColumns: JoinedEntity<ApiKeyEntity>;
  private readonly userColumns: JoinedEntity<UserEntity>;
  private readonly keyWithUserStatement: string;

  constructor(private readonly dataSource: DataSource) {
    this.keyColumns = joinedEntity(dataSource, ApiKeyEntity, 'k', 'k_');
    this.userColumns = joinedEntity(dataSource, UserEntity, 'u', 'u_');
    const table = (
      entity: typeof ApiKeyEntity | typeof UserEntity | typeof TeamEntity | typeof TeamMemberEntity,
    ) => dataSource.getMetadata(entity).tablePath;
    // One statement whatever the key: a personal key finds no team (account_id = user_id), a team key its team and
    // the holder's role (null when they are no longer a member). A team's workers' key is held by the team itself
    // (account_id = user_id = the team's id): it finds its team, and no user, as principalOf expects.
    this.keyWithUserStatement = `SELECT ${this.keyColumns.select}, ${this.userColumns.select},
            t.id AS t_id, t.name AS t_name, m.role AS t_role
       FROM ${table(ApiKeyEntity)} k
       LEFT JOIN ${table(UserEntity)} u ON u.id = k.user_id
       LEFT JOIN ${table(TeamEntity)} t ON t.id = k.account_id AND (k.account_id <> k.user_id OR k.scope = 'worker')
       LEFT JOIN ${table(TeamMemberEntity)} m ON m.team_id = t.id AND m.user_id = k.user_id
      WHERE k.key_hash = $1`;
  }

  private m(manager?: EntityManager): EntityManager {
    return manager ?? this.dataSource.manager;
  }

  insert(key: ApiKeyEntity, manager?: EntityManager): Promise<unknown> {
    return this.m(manager).insert(ApiKeyEntity, key);
  }

  /**
   * How many active keys (worker keys not counted) the user holds for the account, counted under a
   * transaction-scoped advisory lock on the user, so the cap of concurrent creations holds.
   */
  async countActiveLocked(userId: string, accountId: string, manager: EntityManager): Promise<number> {
    await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`api-keys:${userId}`]);
    return manager
      .createQueryBuilder(ApiKeyEntity, 'key')
      .where(
        "key.user_id = :userId AND key.account_id = :accountId AND key.revoked_at IS NULL AND key.scope <> 'worker'",
        { userId, accountId },
      )
      .getCount();
  }

  /**
   * The key with this hash, its user and team, as one named prepared statement on a pooled connection: what every
   * authentication the cache cannot answer reads. Two ORM reads cost two round trips and the ORM's query building
   * and mapping: about 3 ms of a request's time on the development machine.
   */
  async findWithUserByHash(keyHash: string): Promise<KeyWithUser | null> {
    const runner = this.dataSource.createQueryRunner();
    let rows: Record<string, unknown>[];
    try {
      rows = await preparedQuery(runner.manager, 'accounts.key-with-team', this.keyWithUserStatement, [
        keyHash,
      ]);
    } finally {
      await runner.release();
    }
    const row = rows[0];
    const key = row && this.keyColumns.from(row);
    if (!key) return null;
    const team =
      typeof row.t_id === 'string'
        ? { id: row.t_id, name: row.t_name as string, role: (row.t_role as TeamRole | null) ?? null }
        : null;
    return { key, user: this.userColumns.from(row), team };
  }

  /** Keys held by a user (every account), or acting for an account, or all; oldest first. */
  list(filter: { userId?: string; accountId?: string } = {}): Promise<ApiKeyEntity[]> {
    return this.m().find(ApiKeyEntity, { where: { ...filter }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  /** Revokes the active keys matching `where` (SQL over the key's columns, `:at` bound); the keys revoked. */
  private async revokeWhere(
    where: string,
    params: Record<string, unknown>,
    at: Date,
    manager: EntityManager,
  ): Promise<RevokedKey[]> {
    const result = await manager
      .createQueryBuilder()
      .update(ApiKeyEntity)
      .set({ revokedAt: at })
      .where(`(${where}) AND revoked_at IS NULL`, params)
      // The raw columns: TypeORM keeps only the names it can map to the entity from a list of strings.
      .returning('id, user_id, account_id')
      .execute();
    const raw = Array.isArray(result.raw) ? (result.raw as Record<string, string>[]) : [];
    return raw
      .map((row) => ({ id: row.id, userId: row.user_id, accountId: row.account_id }))
      .sort((a, b) => a.id.localeCompare(b.id));
  }

  revokeById(id: string, at: Date, manager: EntityManager): Promise<RevokedKey[]> {
    return this.revokeWhere('id = :id', { id }, at, manager);
  }

  /** The key if it is an active, non-worker key `holder` holds for `accountId`. */
  revokeHeld(id: string, holder: string, accountId: string, at: Date, manager: EntityManager) {
    return this.revokeWhere(
      "id = :id AND user_id = :holder AND account_id = :accountId AND scope <> 'worker'",
      { id, holder, accountId },
      at,
      manager,
    );
  }

  revokeWorkerKeys(endpointId: string, at: Date, manager: EntityManager): Promise<RevokedKey[]> {
    return this.revokeWhere(
      "scope = 'worker' AND :endpointId = ANY(endpoint_ids)",
      { endpointId },
      at,
      manager,
    );
  }

  /** Every key a member holds for a team (they left it, or were removed). */
  revokeMemberKeys(userId: string, teamId: string, at: Date, manager: EntityManager): Promise<RevokedKey[]> {
    return this.revokeWhere('user_id = :userId AND account_id = :teamId', { userId, teamId }, at, manager);
  }

  /** Every key acting for the account, or held by the user: the account is gone. */
  revokeAccountKeys(accountId: string, at: Date, manager: EntityManager): Promise<RevokedKey[]> {
    return this.revokeWhere('account_id = :accountId OR user_id = :accountId', { accountId }, at, manager);
  }
}
