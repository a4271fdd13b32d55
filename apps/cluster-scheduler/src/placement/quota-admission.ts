import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { DomainError, ErrorCode } from '@app/contracts';
import { QuotasRepository } from '../quotas/quotas.repository.js';
import { admitIn, type LimitFailure, type Ledger } from '../quotas/quota-ledger.js';
import type { DataCenterFilter, PlacementPlugins } from './placement.js';

const gpus = (n: number): string => `${n} GPU${n === 1 ? '' : 's'}`;

/** What a refusal names: the account, the type and data center, the limit, what is in use and what was asked. */
export function quotaRefusal(ledger: Ledger, failure: LimitFailure): DomainError {
  const own = ledger.own!;
  const who = own.accountName ? `${own.accountName} (${own.accountId})` : own.accountId;
  const where = failure.limit.dataCenterId ? ` in ${failure.limit.dataCenterId}` : '';
  const whose = own.source === 'default' ? "the operator's default GPU quota" : 'its GPU quota';
  const lending = failure.cohort
    ? `; its cohort ${failure.cohort} can lend ${failure.borrowable} more now` +
      (failure.limit.borrowingLimit === null ? '' : ` (borrowing limit ${failure.limit.borrowingLimit})`)
    : '';
  return new DomainError(
    ErrorCode.QuotaExceeded,
    `account ${who} would exceed ${whose} for ${failure.limit.gpuTypeId}${where}: limit ${gpus(failure.limit.gpus)}, ` +
      `${failure.inUse} in use, ${failure.asked} asked${lending}`,
    [
      `accountId: ${own.accountId}`,
      `gpuTypeId: ${failure.limit.gpuTypeId}`,
      ...(failure.limit.dataCenterId ? [`dataCenterId: ${failure.limit.dataCenterId}`] : []),
      `limit: ${failure.limit.gpus}`,
      `inUse: ${failure.inUse}`,
      `asked: ${failure.asked}`,
    ],
  );
}

/** A data center filter that lets through only the data centers where the ask fits the ledger. */
export function quotaPlugins(
  plugins: PlacementPlugins,
  ledger: Ledger | null,
  asked: number,
): PlacementPlugins {
  if (!ledger?.own) return plugins;
  const filter: DataCenterFilter = {
    name: 'quota',
    accepts: (dc) => admitIn(ledger, asked, dc.id).ok,
  };
  return { ...plugins, dataCenterFilters: [...plugins.dataCenterFilters, filter] };
}

/**
 * Reads the ledger an admission decides on, under the placement ledger's lock (so two creates never both pass a
 * quota): the account's quota, its cohort's, and what they all hold of the type. Null when no quota applies.
 */
@Injectable()
export class QuotaAdmission {
  constructor(private readonly quotas: QuotasRepository) {}

  async ledger(manager: EntityManager, ownerId: string, gpuTypeId: string | null): Promise<Ledger | null> {
    if (gpuTypeId === null) return null;
    const { own, peers, usage } = await this.quotas.ledgerRows(ownerId, gpuTypeId, manager);
    if (!own || !own.limits.some((l) => l.gpuTypeId === gpuTypeId)) return null;
    return { gpuTypeId, own, peers, usage };
  }

  /** `ledger` of several (owner, GPU type) pairs, in one statement; in the pairs' order. */
  async ledgers(
    manager: EntityManager,
    pairs: readonly { accountId: string; gpuTypeId: string }[],
  ): Promise<(Ledger | null)[]> {
    if (!pairs.length) return [];
    const rows = await this.quotas.ledgersRows(pairs, manager);
    return pairs.map(({ accountId, gpuTypeId }) => {
      const { own, peers, usage } = this.quotas.ledgerOf(accountId, gpuTypeId, rows);
      if (!own || !own.limits.some((l) => l.gpuTypeId === gpuTypeId)) return null;
      return { gpuTypeId, own, peers, usage };
    });
  }

  /** The first refusal among the data centers placement considered (in its order), or null: quota is not why. */
  refusal(ledger: Ledger | null, asked: number, considered: readonly string[]): DomainError | null {
    if (!ledger?.own) return null;
    let first: DomainError | null = null;
    for (const dc of considered) {
      const verdict = admitIn(ledger, asked, dc);
      if (verdict.ok) return null;
      first ??= quotaRefusal(ledger, verdict.failure);
    }
    return first;
  }
}
