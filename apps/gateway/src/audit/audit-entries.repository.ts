import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager, type Repository } from 'typeorm';
import type { AuditEntry } from '@app/contracts';
import { AuditEntryEntity } from './audit-entry.entity.js';
import type { AuditFilter } from './audit-filter.js';

/** A page of entries, and whether more (older) ones match. */
export interface AuditRows {
  rows: AuditEntryEntity[];
  more: boolean;
}

@Injectable()
export class AuditEntriesRepository {
  private readonly repo: Repository<AuditEntryEntity>;

  constructor(dataSource: DataSource) {
    this.repo = dataSource.getRepository(AuditEntryEntity);
  }

  /** Keeps an entry once: an event delivered again, or replayed, finds its row there. */
  async insert(entry: AuditEntry, manager: EntityManager): Promise<void> {
    await manager
      .createQueryBuilder()
      .insert()
      .into(AuditEntryEntity)
      .values(toRow(entry))
      .orIgnore()
      .execute();
  }

  /**
   * The newest `limit` entries matching the filter, strictly older than its cursor, in (at, id) order backwards:
   * one range of the index the filter's account and most selective equality lead (audit-entry.entity.ts).
   * `account` undefined: every account (an operator's read).
   */
  async page(account: string | undefined, filter: AuditFilter): Promise<AuditRows> {
    const query = this.repo.createQueryBuilder('e');
    if (account !== undefined) query.andWhere('e.account_id = :account', { account });
    if (filter.from) query.andWhere('e.at >= :from', { from: filter.from });
    if (filter.to) query.andWhere('e.at < :to', { to: filter.to });
    if (filter.actor) query.andWhere('e.actor_user_id = :actor', { actor: filter.actor });
    if (filter.action) query.andWhere('e.action = :action', { action: filter.action });
    if (filter.resourceType) query.andWhere('e.resource_type = :type', { type: filter.resourceType });
    if (filter.resourceId) query.andWhere('e.resource_id = :resource', { resource: filter.resourceId });
    if (filter.after) {
      query.andWhere('(e.at, e.id) < (:afterAt, :afterId)', {
        afterAt: filter.after.at,
        afterId: filter.after.id,
      });
    }
    const rows = await query
      .orderBy('e.at', 'DESC')
      .addOrderBy('e.id', 'DESC')
      .limit(filter.limit + 1)
      .getMany();
    return { rows: rows.slice(0, filter.limit), more: rows.length > filter.limit };
  }
}

function toRow(entry: AuditEntry): AuditEntryEntity {
  return {
    id: entry.id,
    at: new Date(entry.at),
    accountId: entry.accountId,
    actorUserId: entry.actor.userId,
    actorKeyId: entry.actor.keyId ?? null,
    actorKind: entry.actor.kind,
    actorReason: entry.actor.reason ?? null,
    action: entry.action,
    resourceType: entry.resourceType,
    resourceId: entry.resourceId,
    errorCode: entry.outcome.ok ? null : entry.outcome.code,
    errorMessage: entry.outcome.ok ? null : entry.outcome.message,
    details: entry.details ?? null,
    commandId: entry.commandId ?? null,
  };
}
