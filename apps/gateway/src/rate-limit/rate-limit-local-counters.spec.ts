import { describe, expect, it } from '@jest/globals';
import type { CounterHit } from './rate-limit-counters.repository.js';
import { counterKey, LocalCounters, type SharedCounter } from './rate-limit-local-counters.js';

const WINDOWS = { minute: 60, hour: 3600, day: 86400 };
const HIT: CounterHit = {
  userId: 'u1',
  policy: 'rest',
  scopeKey: '',
  windowSeconds: WINDOWS,
  defaultQuotas: { minute: 5, hour: 100, day: 1000 },
};
const KEY = counterKey(HIT);
/** A local clock 10 s behind the store's, at 30 s into a minute window. */
const STORE_NOW = 1_800_000_030;
const LOCAL_MS = (STORE_NOW - 10) * 1000;

function shared(counts: [number, number, number], now = STORE_NOW): SharedCounter {
  const start = (length: number) => Math.floor(now / length) * length;
  return {
    now,
    windows: {
      minute: { start: start(60), count: counts[0], quota: 5 },
      hour: { start: start(3600), count: counts[1], quota: 100 },
      day: { start: start(86400), count: counts[2], quota: 1000 },
    },
  };
}

function installed(counts: [number, number, number]): LocalCounters {
  const local = new LocalCounters(350);
  local.install(KEY, HIT, shared(counts), LOCAL_MS, LOCAL_MS);
  return local;
}

describe('LocalCounters', () => {
  it('admits while the shared total plus the local count leaves room, on the store clock', () => {
    const local = installed([2, 10, 10]);
    const first = local.admit(KEY, LOCAL_MS + 5);
    expect(first.admitted).toBe(true);
    expect(first.now).toBeCloseTo(STORE_NOW + 0.005, 3);
    expect(first.windows.minute).toMatchObject({ count: 3, quota: 5 });
    expect(first.windows.hour.count).toBe(11);
    expect(local.admit(KEY, LOCAL_MS + 6).admitted).toBe(true);
    expect(local.admit(KEY, LOCAL_MS + 7).windows.minute).toMatchObject({ count: 5 });
    const refused = local.admit(KEY, LOCAL_MS + 8);
    expect(refused.admitted).toBe(false);
    expect(refused.windows.minute.count).toBe(5);
  });

  it('counts every unit of a weighted request, admitting it while a window has room at all', () => {
    const local = installed([2, 10, 10]);
    const heavy = local.admit(KEY, LOCAL_MS + 5, 4);
    expect(heavy.admitted).toBe(true);
    expect(heavy.windows.minute).toMatchObject({ count: 6, quota: 5 });
    expect(heavy.windows.hour.count).toBe(14);
    expect(local.admit(KEY, LOCAL_MS + 6).admitted).toBe(false);
    expect(local.beginFlush(LOCAL_MS + 100)).toEqual([{ hit: HIT, increment: 4 }]);
  });

  it('starts a window that passed since the store answered from what was admitted here', () => {
    const local = new LocalCounters(60_000);
    local.install(KEY, HIT, shared([5, 10, 10]), LOCAL_MS, LOCAL_MS);
    expect(local.admit(KEY, LOCAL_MS).admitted).toBe(false);
    const next = local.admit(KEY, LOCAL_MS + 31_000); // the store's minute rolled over
    expect(next.admitted).toBe(true);
    expect(next.windows.minute).toMatchObject({ start: STORE_NOW + 30, count: 1 });
    expect(next.windows.hour.count).toBe(11);
  });

  it('is fresh for staleMs after the refreshing statement was sent, then asks for the store', () => {
    const local = installed([0, 0, 0]);
    expect(local.isFresh(KEY, LOCAL_MS + 350)).toBe(true);
    expect(local.isFresh(KEY, LOCAL_MS + 351)).toBe(false);
    expect(local.isFresh('other', LOCAL_MS)).toBe(false);
  });

  it('flushes the admitted count and every counter asked, counting the flush under way until it lands', () => {
    const local = installed([2, 10, 10]);
    local.admit(KEY, LOCAL_MS + 1);
    local.admit(KEY, LOCAL_MS + 2);
    const batch = local.beginFlush(LOCAL_MS + 100);
    expect(batch).toEqual([{ hit: HIT, increment: 2 }]);
    // While the flush is under way its 2 still count: 2 + 2 + this one = 5.
    expect(local.admit(KEY, LOCAL_MS + 101).admitted).toBe(true);
    expect(local.admit(KEY, LOCAL_MS + 102).admitted).toBe(false);
    // Another replica admitted 1 meanwhile: the store answers 2 + 2 + 1.
    local.endFlush(new Map([[KEY, shared([5, 13, 13])]]), LOCAL_MS + 100, LOCAL_MS + 104);
    expect(local.admit(KEY, LOCAL_MS + 105).admitted).toBe(false);
    // The pending one (admitted during the flush) goes with the next; the refusals are sent as 0 too.
    expect(local.beginFlush(LOCAL_MS + 200)).toEqual([{ hit: HIT, increment: 1 }]);
  });

  it('sends a failed flush again with the next one', () => {
    const local = installed([0, 0, 0]);
    local.admit(KEY, LOCAL_MS + 1);
    expect(local.beginFlush(LOCAL_MS + 100)).toEqual([{ hit: HIT, increment: 1 }]);
    local.admit(KEY, LOCAL_MS + 101);
    local.failFlush();
    expect(local.beginFlush(LOCAL_MS + 200)).toEqual([{ hit: HIT, increment: 2 }]);
  });

  it('forgets a counter nobody asked for longer than staleMs', () => {
    const local = installed([0, 0, 0]);
    expect(local.beginFlush(LOCAL_MS + 100)).toEqual([]);
    expect(local.size).toBe(1);
    expect(local.beginFlush(LOCAL_MS + 400)).toEqual([]);
    expect(local.size).toBe(0);
  });
});
