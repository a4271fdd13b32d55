/**
 * The GPU ledger's rules as pure functions over one snapshot (docs/adr/0037-quotas-and-preemption.md): what an
 * account may still take of one GPU type in one data center, alone or by borrowing its cohort's idle quota, and
 * what each limit shows (in use, borrowed, lent). No I/O and no clock: the admission in the placement's
 * transaction and the views read the same numbers.
 */
import type { StoredLimit } from './quota.entity.js';

export interface AccountQuota {
  accountId: string;
  accountName: string | null;
  cohort: string | null;
  limits: StoredLimit[];
  /** `account`: its own row; `default`: the operator's default stands in for it. */
  source: 'account' | 'default';
}

/** GPUs of the ledger's type one account holds in one data center. */
export interface Usage {
  ownerId: string;
  dataCenterId: string;
  gpus: number;
}

/** One GPU type's ledger around one account: its quota, its cohort peers' and what all of them hold. */
export interface Ledger {
  gpuTypeId: string;
  /** The asker's quota; null: unlimited. */
  own: AccountQuota | null;
  /** The other accounts of the asker's cohort, with their own quotas. */
  peers: AccountQuota[];
  usage: Usage[];
}

/** Why an ask does not fit one limit, with the numbers a refusal names. */
export interface LimitFailure {
  limit: StoredLimit;
  inUse: number;
  asked: number;
  /** What the cohort could lend now, within the limit's borrowing limit (0 without a cohort). */
  borrowable: number;
  cohort: string | null;
}

export type Verdict = { ok: true; borrowing: boolean } | { ok: false; failure: LimitFailure };

/** Whether `limit` counts GPUs of `gpuTypeId` in `dataCenterId`. */
export function counts(limit: StoredLimit, gpuTypeId: string, dataCenterId: string): boolean {
  return (
    limit.gpuTypeId === gpuTypeId && (limit.dataCenterId === null || limit.dataCenterId === dataCenterId)
  );
}

/** What `ownerId` holds that `limit` counts (the ledger is of the limit's type already). */
export function usedUnder(usage: readonly Usage[], ownerId: string, limit: StoredLimit): number {
  let sum = 0;
  for (const u of usage) {
    if (u.ownerId === ownerId && (limit.dataCenterId === null || u.dataCenterId === limit.dataCenterId)) {
      sum += u.gpus;
    }
  }
  return sum;
}

/** A peer's limit of the same key (type, and data center or none), which lends to and borrows from `limit`. */
export function sameKey(quota: AccountQuota, limit: StoredLimit): StoredLimit | undefined {
  return quota.limits.find((l) => l.gpuTypeId === limit.gpuTypeId && l.dataCenterId === limit.dataCenterId);
}

/** What the peers hold beyond their own share of `limit`'s key (borrowed), and their idle share (lendable). */
export function cohortBalance(
  peers: readonly AccountQuota[],
  usage: readonly Usage[],
  limit: StoredLimit,
): { idle: number; borrowed: number } {
  let idle = 0;
  let borrowed = 0;
  for (const peer of peers) {
    const theirs = sameKey(peer, limit);
    if (!theirs) continue;
    const used = usedUnder(usage, peer.accountId, theirs);
    idle += Math.max(0, theirs.gpus - used);
    borrowed += Math.max(0, used - theirs.gpus);
  }
  return { idle, borrowed };
}

/**
 * Whether `asked` more GPUs fit one limit (Kueue's rule): the account stays within its share plus its borrowing
 * limit (its share alone without a cohort), and its cohort stays within the sum of its members' shares. So an
 * account borrows only what the others leave idle, and an account whose idle share was lent out gets it back only
 * by preemption (the borrowers are preemptible): until then its ask does not fit.
 */
export function fitsLimit(ledger: Ledger, limit: StoredLimit, asked: number): Verdict {
  const own = ledger.own!;
  const inUse = usedUnder(ledger.usage, own.accountId, limit);
  const { idle, borrowed } = own.cohort
    ? cohortBalance(ledger.peers, ledger.usage, limit)
    : { idle: 0, borrowed: 0 };
  const cap = !own.cohort
    ? limit.gpus
    : limit.borrowingLimit === null
      ? Infinity
      : limit.gpus + limit.borrowingLimit;
  // What the cohort as a whole has left: this account's idle share plus the others' idle shares, less what is
  // borrowed of them already.
  const cohortRoom = limit.gpus - inUse + idle - borrowed;
  if (inUse + asked <= cap && (!own.cohort || asked <= cohortRoom)) {
    return { ok: true, borrowing: inUse + asked > limit.gpus };
  }
  const borrowable = own.cohort
    ? Math.max(0, Math.min(cap - Math.max(inUse, limit.gpus), idle - borrowed))
    : 0;
  return { ok: false, failure: { limit, inUse, asked, borrowable, cohort: own.cohort } };
}

/**
 * The verdict for `asked` GPUs in `dataCenterId`: every limit that counts them must admit them. Borrowing when
 * any of them is exceeded by borrowing.
 */
export function admitIn(ledger: Ledger, asked: number, dataCenterId: string): Verdict {
  if (!ledger.own) return { ok: true, borrowing: false };
  let borrowing = false;
  for (const limit of ledger.own.limits) {
    if (!counts(limit, ledger.gpuTypeId, dataCenterId)) continue;
    const verdict = fitsLimit(ledger, limit, asked);
    if (!verdict.ok) return verdict;
    borrowing ||= verdict.borrowing;
  }
  return { ok: true, borrowing };
}

/** Whether the ask stays within the account's own share in `dataCenterId` (what lets it reclaim lent GPUs). */
export function withinShare(ledger: Ledger, asked: number, dataCenterId: string): boolean {
  if (!ledger.own) return true;
  return ledger.own.limits.every(
    (limit) =>
      !counts(limit, ledger.gpuTypeId, dataCenterId) ||
      usedUnder(ledger.usage, ledger.own!.accountId, limit) + asked <= limit.gpus,
  );
}

/** The ledger with `taken` held GPUs given back (a preemption plan's victims), for planning again. */
export function without(ledger: Ledger, taken: readonly Usage[]): Ledger {
  const usage = ledger.usage.map((u) => ({ ...u }));
  for (const t of taken) {
    const row = usage.find((u) => u.ownerId === t.ownerId && u.dataCenterId === t.dataCenterId);
    if (row) row.gpus -= t.gpus;
  }
  return { ...ledger, usage };
}

/**
 * Of the account's idle share of `limit`, what its cohort's borrowers use now. Borrowed GPUs are charged to the
 * lenders in account id order (each up to its idle share), so the lent amounts add up to what is borrowed and a
 * view is the same whichever replica computes it.
 */
export function lentBy(ledger: Ledger, limit: StoredLimit): number {
  const own = ledger.own!;
  if (!own.cohort) return 0;
  const members = [own, ...ledger.peers].sort((a, b) => (a.accountId < b.accountId ? -1 : 1));
  let toCharge = cohortBalance(ledger.peers, ledger.usage, limit).borrowed;
  // This account's own borrowing is not lent by itself; it cannot be both borrowing and idle anyway.
  for (const member of members) {
    const theirs = member === own ? limit : sameKey(member, limit);
    if (!theirs) continue;
    const idle = Math.max(0, theirs.gpus - usedUnder(ledger.usage, member.accountId, theirs));
    const charged = Math.min(idle, toCharge);
    if (member === own) return charged;
    toCharge -= charged;
  }
  return 0;
}

/**
 * Where the ledger breaks its rules: an account above its share plus what it may borrow (its share alone without
 * a cohort), or a cohort above the sum of its members' shares. Admission never makes one; a quota change that
 * would is refused (`quotas`: every account's quota in force, the default standing in where it applies).
 */
export function quotaBreaches(
  quotas: readonly AccountQuota[],
  usage: ReadonlyMap<string, Usage[]>,
): string[] {
  const breaches: string[] = [];
  const cohorts = new Map<string, number[]>();
  for (const quota of quotas) {
    for (const limit of quota.limits) {
      const where = `${limit.gpuTypeId}${limit.dataCenterId ? ` in ${limit.dataCenterId}` : ''}`;
      const used = usedUnder(usage.get(limit.gpuTypeId) ?? [], quota.accountId, limit);
      const cap = !quota.cohort ? limit.gpus : limit.gpus + (limit.borrowingLimit ?? Infinity);
      if (used > cap) {
        breaches.push(
          `${quota.accountId} holds ${used} × ${where}, more than its limit of ${limit.gpus}` +
            (quota.cohort ? ` plus its borrowing limit of ${limit.borrowingLimit}` : ''),
        );
      }
      if (!quota.cohort) continue;
      const key = `${quota.cohort}\u0000${limit.gpuTypeId}\u0000${limit.dataCenterId ?? ''}`;
      const [gpus, inUse] = cohorts.get(key) ?? [0, 0];
      cohorts.set(key, [gpus + limit.gpus, inUse + used]);
    }
  }
  for (const [key, [gpus, inUse]] of cohorts) {
    const [cohort, gpuTypeId, dataCenterId] = key.split('\u0000');
    if (inUse > gpus) {
      breaches.push(
        `cohort ${cohort} holds ${inUse} × ${gpuTypeId}${dataCenterId ? ` in ${dataCenterId}` : ''}, ` +
          `more than its members' ${gpus}`,
      );
    }
  }
  return breaches;
}
