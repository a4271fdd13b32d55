import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { DEFAULT_QUOTA_ACCOUNT, type QuotaLimitView, type QuotaView } from '@app/contracts';
import type { QuotaEntity } from './quota.entity.js';
import { lentBy, usedUnder, type AccountQuota, type Ledger } from './quota-ledger.js';
import { QuotasRepository } from './quotas.repository.js';

const MINUTE_MS = 60_000;

/** No quota applies: unlimited. */
const NONE: QuotaView = {
  accountId: '',
  accountName: null,
  source: 'none',
  cohort: null,
  limits: [],
  preempted: { lastMinute: 0, total: 0 },
  updatedAt: null,
};

/** An account's limits with what it holds, borrows and lends of each (the ledger's numbers, read at `now`). */
export function limitViews(
  own: AccountQuota,
  peers: AccountQuota[],
  usage: Map<string, Ledger['usage']>,
): QuotaLimitView[] {
  return own.limits.map((limit) => {
    const ledger: Ledger = {
      gpuTypeId: limit.gpuTypeId,
      own,
      peers,
      usage: usage.get(limit.gpuTypeId) ?? [],
    };
    const inUse = usedUnder(ledger.usage, own.accountId, limit);
    return {
      gpuTypeId: limit.gpuTypeId,
      dataCenterId: limit.dataCenterId,
      gpus: limit.gpus,
      borrowingLimit: limit.borrowingLimit,
      inUse,
      borrowed: Math.max(0, inUse - limit.gpus),
      lent: lentBy(ledger, limit),
    };
  });
}

/** Quota views for the routes: one account's, and the operator's list of all. */
@Injectable()
export class QuotaViews {
  constructor(private readonly quotas: QuotasRepository) {}

  async of(accountId: string, now: Date, manager?: EntityManager): Promise<QuotaView> {
    if (accountId === DEFAULT_QUOTA_ACCOUNT) {
      // The default itself, not an account under it.
      const row = await this.quotas.find(accountId, manager);
      return row ? this.defaultView(row) : { ...NONE, accountId };
    }
    const { own, peers } = await this.quotas.around(accountId, manager);
    const preempted = await this.quotas.preemptedCounts(
      accountId,
      new Date(now.getTime() - MINUTE_MS),
      manager,
    );
    const row = own?.source === 'account' ? await this.quotas.find(accountId, manager) : null;
    if (!own) {
      return {
        accountId,
        accountName: null,
        source: 'none',
        cohort: null,
        limits: [],
        preempted,
        updatedAt: null,
      };
    }
    const usage = await this.quotas.usageByType([accountId, ...peers.map((p) => p.accountId)], manager);
    return {
      accountId,
      accountName: own.source === 'account' ? own.accountName : null,
      source: own.source,
      cohort: own.cohort,
      limits: limitViews(own, peers, usage),
      preempted,
      updatedAt: row?.updatedAt.toISOString() ?? null,
    };
  }

  /** The default as a view of its own (nothing in use: it is a template for every account under it). */
  defaultView(row: QuotaEntity): QuotaView {
    return {
      accountId: DEFAULT_QUOTA_ACCOUNT,
      accountName: null,
      source: 'default',
      cohort: null,
      limits: row.limits.map((l) => ({ ...l, inUse: 0, borrowed: 0, lent: 0 })),
      preempted: { lastMinute: 0, total: 0 },
      updatedAt: row.updatedAt.toISOString(),
    };
  }
}
