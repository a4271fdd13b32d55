import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { DEFAULT_QUOTA_ACCOUNT } from '@app/contracts';
import { preparedQuery } from '@app/database';
import { table } from '../schema.js';
import { PreemptionEntity } from './preemption.entity.js';
import { QuotaSampleEntity } from './quota-sample.entity.js';
import { QuotaEntity, type StoredLimit } from './quota.entity.js';
import type { AccountQuota, Usage } from './quota-ledger.js';

export interface QuotaRow {
  account_id: string;
  account_name: string | null;
  cohort: string | null;
  limits: StoredLimit[];
}

/** An account's quota and its cohort's, as admission and the views read them. */
export interface QuotasAround {
  own: AccountQuota | null;
  peers: AccountQuota[];
}

function toQuota(row: QuotaRow, source: AccountQuota['source']): AccountQuota {
  return {
    accountId: row.account_id,
    accountName: row.account_name,
    cohort: source === 'default' ? null : row.cohort,
    limits: row.limits,
    source,
  };
}

/** Quotas, the GPU use they count (the placement ledger's reservations), preemptions and the minute samples. */
@Injectable()
export class QuotasRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * The account's own quota (else the default, which has no cohort) and the other members of its cohort, in one
   * prepared statement: every GPU placement asks it, most often to learn that no quota applies.
   */
  async around(accountId: string, manager: EntityManager = this.dataSource.manager): Promise<QuotasAround> {
    const rows = await preparedQuery<QuotaRow>(
      manager,
      'quotas.around',
      `SELECT account_id, account_name, cohort, limits FROM ${table('quotas')}
        WHERE account_id = $1 OR account_id = $2
           OR cohort = (SELECT cohort FROM ${table('quotas')} WHERE account_id = $1)`,
      [accountId, DEFAULT_QUOTA_ACCOUNT],
    );
    return this.aroundOf(accountId, rows);
  }

  private aroundOf(accountId: string, rows: QuotaRow[]): QuotasAround {
    const mine = rows.find((r) => r.account_id === accountId);
    const fallback = rows.find((r) => r.account_id === DEFAULT_QUOTA_ACCOUNT);
    if (!mine) return { own: fallback ? { ...toQuota(fallback, 'default'), accountId } : null, peers: [] };
    const peers = mine.cohort
      ? rows.filter((r) => r.account_id !== accountId && r.account_id !== DEFAULT_QUOTA_ACCOUNT)
      : [];
    return {
      own: toQuota(mine, 'account'),
      peers: peers.filter((r) => r.cohort === mine.cohort).map((r) => toQuota(r, 'account')),
    };
  }

  /**
   * Admission's read, in ONE prepared statement: the account's quota and its cohort's (as `around`), and what the
   * account and its cohort peers hold of `gpuTypeId` per data center. A second statement for the use cost a round
   * trip in every placement with a quota (the bench's `quotas` scenario).
   */
  async ledgerRows(
    accountId: string,
    gpuTypeId: string,
    manager: EntityManager,
  ): Promise<QuotasAround & { usage: Usage[] }> {
    const [row] = await preparedQuery<{ quotas: QuotaRow[]; usage: Usage[] }>(
      manager,
      'quotas.ledger',
      `WITH q AS (
         SELECT account_id, account_name, cohort, limits FROM ${table('quotas')}
          WHERE account_id = $1 OR account_id = $2
             OR cohort = (SELECT cohort FROM ${table('quotas')} WHERE account_id = $1)
       )
       SELECT (SELECT coalesce(json_agg(q), '[]') FROM q) AS quotas,
              (SELECT coalesce(json_agg(u), '[]') FROM (
                 SELECT owner_id AS "ownerId", data_center_id AS "dataCenterId", sum(gpu_count)::int AS gpus
                   FROM ${table('reservations')}
                  WHERE gpu_type_id = $3
                    AND (owner_id = $1 OR owner_id IN (SELECT account_id FROM q WHERE account_id <> $2
                           AND cohort = (SELECT cohort FROM q WHERE account_id = $1)))
                  GROUP BY owner_id, data_center_id) u) AS usage`,
      [accountId, DEFAULT_QUOTA_ACCOUNT, gpuTypeId],
    );
    return { ...this.aroundOf(accountId, row.quotas), usage: row.usage };
  }

  /**
   * `ledgerRows` of several (account, GPU type) pairs in ONE statement (a lane's batch of reserves): every quota
   * any of them reads, and per pair what the account and its cohort peers hold of the type, per data center, as
   * rows of (owner, type, data center) read through reservations_owner_type_idx. `ledgerOf` makes each pair's
   * ledger of them, as `ledgerRows` would have answered.
   */
  async ledgersRows(
    pairs: readonly { accountId: string; gpuTypeId: string }[],
    manager: EntityManager,
  ): Promise<{ quotas: QuotaRow[]; usage: (Usage & { gpuTypeId: string })[] }> {
    const [row] = await preparedQuery<{ quotas: QuotaRow[]; usage: (Usage & { gpuTypeId: string })[] }>(
      manager,
      'quotas.ledgers',
      `WITH pairs AS (
         SELECT * FROM unnest($1::text[], $2::text[]) AS p(account_id, gpu_type_id)
       ), own AS (
         SELECT p.account_id, p.gpu_type_id, q.cohort
           FROM pairs p LEFT JOIN ${table('quotas')} q ON q.account_id = p.account_id
       ), counted AS (
         SELECT account_id, gpu_type_id FROM own
          UNION
         SELECT q.account_id, own.gpu_type_id FROM own JOIN ${table('quotas')} q
             ON q.cohort = own.cohort AND q.account_id <> $3
       ), q AS (
         SELECT account_id, account_name, cohort, limits FROM ${table('quotas')}
          WHERE account_id IN (SELECT account_id FROM pairs) OR account_id = $3
             OR cohort IN (SELECT cohort FROM own)
       )
       SELECT (SELECT coalesce(json_agg(q), '[]') FROM q) AS quotas,
              (SELECT coalesce(json_agg(u), '[]') FROM (
                 SELECT r.owner_id AS "ownerId", r.gpu_type_id AS "gpuTypeId", r.data_center_id AS "dataCenterId",
                        sum(r.gpu_count)::int AS gpus
                   FROM counted c JOIN ${table('reservations')} r
                     ON r.owner_id = c.account_id AND r.gpu_type_id = c.gpu_type_id
                  GROUP BY 1, 2, 3) u) AS usage`,
      [pairs.map((p) => p.accountId), pairs.map((p) => p.gpuTypeId), DEFAULT_QUOTA_ACCOUNT],
    );
    return row;
  }

  /**
   * One pair's ledger rows out of `ledgersRows`: its quotas as `around` reads them (the filter on the cohort makes
   * the others' rows irrelevant) and the use of the account and its peers, of the type.
   */
  ledgerOf(
    accountId: string,
    gpuTypeId: string,
    rows: { quotas: QuotaRow[]; usage: (Usage & { gpuTypeId: string })[] },
  ): QuotasAround & { usage: Usage[] } {
    const around = this.aroundOf(accountId, rows.quotas);
    const counted = new Set([accountId, ...around.peers.map((p) => p.accountId)]);
    const usage = rows.usage
      .filter((u) => u.gpuTypeId === gpuTypeId && counted.has(u.ownerId))
      .map(({ ownerId, dataCenterId, gpus }) => ({ ownerId, dataCenterId, gpus }));
    return { ...around, usage };
  }

  /** Every GPU type's use by the accounts, per data center (the views and samples). */
  async usageByType(
    accountIds: readonly string[],
    manager: EntityManager = this.dataSource.manager,
  ): Promise<Map<string, Usage[]>> {
    const rows: (Usage & { gpuTypeId: string })[] = await manager.query(
      `SELECT gpu_type_id AS "gpuTypeId", owner_id AS "ownerId", data_center_id AS "dataCenterId",
              sum(gpu_count)::int AS gpus
         FROM ${table('reservations')} WHERE gpu_type_id IS NOT NULL AND owner_id = ANY($1::text[])
        GROUP BY 1, 2, 3`,
      [accountIds],
    );
    const byType = new Map<string, Usage[]>();
    for (const { gpuTypeId, ...usage } of rows) {
      byType.set(gpuTypeId, [...(byType.get(gpuTypeId) ?? []), usage]);
    }
    return byType;
  }

  find(accountId: string, manager: EntityManager = this.dataSource.manager): Promise<QuotaEntity | null> {
    return manager.findOneBy(QuotaEntity, { accountId });
  }

  all(manager: EntityManager = this.dataSource.manager): Promise<QuotaEntity[]> {
    return manager.find(QuotaEntity, { order: { accountId: 'ASC' } });
  }

  /** Every account that holds GPUs now (for the samples of accounts under the default). */
  async holders(manager: EntityManager): Promise<string[]> {
    const rows: { owner_id: string }[] = await manager.query(
      `SELECT DISTINCT owner_id FROM ${table('reservations')} WHERE gpu_type_id IS NOT NULL ORDER BY owner_id`,
    );
    return rows.map((r) => r.owner_id);
  }

  /** Every account's quota in force: its own, or the default for each account that holds GPUs without one. */
  async inForce(manager: EntityManager): Promise<AccountQuota[]> {
    const rows = await this.all(manager);
    const own = rows.filter((r) => r.accountId !== DEFAULT_QUOTA_ACCOUNT);
    const fallback = rows.find((r) => r.accountId === DEFAULT_QUOTA_ACCOUNT);
    const quotas: AccountQuota[] = own.map((r) => ({ ...r, source: 'account' }));
    if (!fallback) return quotas;
    const named = new Set(own.map((r) => r.accountId));
    for (const accountId of await this.holders(manager)) {
      if (!named.has(accountId)) {
        quotas.push({ ...fallback, accountId, accountName: null, cohort: null, source: 'default' });
      }
    }
    return quotas;
  }

  async save(quota: QuotaEntity, manager: EntityManager): Promise<void> {
    await manager.upsert(QuotaEntity, quota, ['accountId']);
  }

  async remove(accountId: string, manager: EntityManager): Promise<void> {
    await manager.delete(QuotaEntity, { accountId });
  }

  /** Preemptions per victim pace key since `since`. */
  async preemptionsSince(since: Date, manager: EntityManager): Promise<Map<string, number>> {
    const rows: { key: string; n: number }[] = await manager.query(
      `SELECT victim_cohort AS key, count(*)::int AS n FROM ${table('preemptions')} WHERE at > $1 GROUP BY 1`,
      [since],
    );
    return new Map(rows.map((r) => [r.key, r.n]));
  }

  /** An account's workloads preempted since `since`, and in all. */
  async preemptedCounts(
    accountId: string,
    since: Date,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<{ lastMinute: number; total: number }> {
    const [row]: { recent: number; total: number }[] = await manager.query(
      `SELECT count(*) FILTER (WHERE at > $2)::int AS recent, count(*)::int AS total
         FROM ${table('preemptions')} WHERE victim_owner_id = $1`,
      [accountId, since],
    );
    return { lastMinute: row.recent, total: row.total };
  }

  async recordPreemptions(rows: PreemptionEntity[], manager: EntityManager): Promise<void> {
    if (rows.length) await manager.insert(PreemptionEntity, rows);
  }

  async insertSamples(samples: QuotaSampleEntity[], manager: EntityManager): Promise<void> {
    if (samples.length) await manager.insert(QuotaSampleEntity, samples);
  }

  /** Samples older than `before` go (a week is kept). */
  async pruneSamples(before: Date, manager: EntityManager): Promise<void> {
    await manager.query(`DELETE FROM ${table('quota_samples')} WHERE at < $1`, [before]);
  }

  samples(accountId: string, since: Date): Promise<QuotaSampleEntity[]> {
    return this.dataSource.manager.query(
      `SELECT account_id AS "accountId", at, gpu_type_id AS "gpuTypeId", data_center_id AS "dataCenterId", gpus,
              in_use AS "inUse", borrowed, lent
         FROM ${table('quota_samples')} WHERE account_id = $1 AND at >= $2 ORDER BY at, gpu_type_id, data_center_id`,
      [accountId, since],
    );
  }
}
