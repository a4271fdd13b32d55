import { describe, expect, it } from '@jest/globals';
import { admitIn, lentBy, type AccountQuota, type Ledger, type Usage } from './quota-ledger.js';
import type { StoredLimit } from './quota.entity.js';

const H100 = 'NVIDIA H100';
const limit = (
  gpus: number,
  borrowingLimit: number | null = null,
  dataCenterId: string | null = null,
): StoredLimit => ({
  gpuTypeId: H100,
  dataCenterId,
  gpus,
  borrowingLimit,
});
const quota = (
  accountId: string,
  limits: StoredLimit[],
  cohort: string | null = 'research',
): AccountQuota => ({
  accountId,
  accountName: accountId,
  cohort,
  limits,
  source: 'account',
});
const use = (ownerId: string, gpus: number, dataCenterId = 'DC-1'): Usage => ({
  ownerId,
  dataCenterId,
  gpus,
});

function ledger(own: AccountQuota | null, peers: AccountQuota[], usage: Usage[]): Ledger {
  return { gpuTypeId: H100, own, peers, usage };
}

describe('the GPU ledger', () => {
  it('admits within the share and refuses beyond it without a cohort, naming the numbers', () => {
    const l = ledger(quota('a', [limit(8)], null), [], [use('a', 6)]);
    expect(admitIn(l, 2, 'DC-1')).toEqual({ ok: true, borrowing: false });
    expect(admitIn(l, 3, 'DC-1')).toEqual({
      ok: false,
      failure: { limit: limit(8), inUse: 6, asked: 3, borrowable: 0, cohort: null },
    });
  });

  it('lets an account borrow what its peers leave idle, up to its borrowing limit', () => {
    const peers = [quota('b', [limit(8)]), quota('c', [limit(4)])];
    const usage = [use('a', 8), use('b', 2), use('c', 4)];
    const capped = ledger(quota('a', [limit(8, 4)]), peers, usage);
    expect(admitIn(capped, 4, 'DC-1')).toEqual({ ok: true, borrowing: true });
    expect(admitIn(capped, 5, 'DC-1')).toMatchObject({ ok: false, failure: { borrowable: 4 } });
    const unlimited = ledger(quota('a', [limit(8)]), peers, usage);
    expect(admitIn(unlimited, 6, 'DC-1')).toEqual({ ok: true, borrowing: true });
    expect(admitIn(unlimited, 7, 'DC-1')).toMatchObject({ ok: false, failure: { inUse: 8, borrowable: 6 } });
  });

  it('refuses an account its own idle share while the cohort has lent it out (it is reclaimed by preemption)', () => {
    // b borrows 6 of a's 8: a uses 2, so the cohort (16) holds 2 + 14 = 16 already.
    const l = ledger(quota('a', [limit(8)]), [quota('b', [limit(8)])], [use('a', 2), use('b', 14)]);
    expect(admitIn(l, 1, 'DC-1')).toMatchObject({ ok: false, failure: { inUse: 2, asked: 1 } });
    expect(lentBy(l, limit(8))).toBe(6);
  });

  it('counts a data center limit only there, and a type-wide one everywhere', () => {
    const own = quota('a', [limit(4, null, 'DC-1'), limit(10)], null);
    const l = ledger(own, [], [use('a', 4, 'DC-1'), use('a', 3, 'DC-2')]);
    expect(admitIn(l, 1, 'DC-1').ok).toBe(false);
    expect(admitIn(l, 3, 'DC-2')).toEqual({ ok: true, borrowing: false });
    expect(admitIn(l, 4, 'DC-2').ok).toBe(false);
  });

  it('admits anything with no quota, and any type the quota does not list', () => {
    expect(admitIn(ledger(null, [], []), 1000, 'DC-1').ok).toBe(true);
    const other = { ...ledger(quota('a', [limit(0)], null), [], []), gpuTypeId: 'NVIDIA A100' };
    expect(admitIn(other, 1000, 'DC-1').ok).toBe(true);
  });

  it('charges what is borrowed to the lenders in account id order', () => {
    const peers = [quota('b', [limit(4)]), quota('c', [limit(4)])];
    const usage = [use('a', 0), use('b', 0), use('c', 10)];
    const l = ledger(quota('a', [limit(4)]), peers, usage);
    expect(lentBy(l, limit(4))).toBe(4);
    expect(lentBy(ledger(peers[0], [quota('a', [limit(4)]), peers[1]], usage), limit(4))).toBe(2);
  });
});
