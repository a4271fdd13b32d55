import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/test-database.js';
import { GatewayConfig } from '../gateway.config.js';
import { RateLimitCountersRepository, type CounterHit } from './rate-limit-counters.repository.js';
import type { CounterSnapshot } from './rate-limit-decision.js';

/** The shared counter store against real Postgres: atomic admission, no charge for rejections, rollover. */

let db: TestDatabase;
let admin: pg.Client;
const repositories: RateLimitCountersRepository[] = [];

function repository(overrides: Partial<GatewayConfig> = {}): RateLimitCountersRepository {
  const config = Object.assign(new GatewayConfig(), { DATABASE_URL: db.url }, overrides);
  const repo = new RateLimitCountersRepository(config);
  repositories.push(repo);
  return repo;
}

/** Windows far longer than a test, so no boundary passes while one runs. */
const LONG = { minute: 999_999, hour: 999_999, day: 999_999 };

function hit(
  userId: string,
  defaultQuotas: CounterHit['defaultQuotas'],
  extra: Partial<CounterHit> = {},
): CounterHit {
  return { userId, policy: 'rest', scopeKey: '', windowSeconds: LONG, defaultQuotas, ...extra };
}

/** The store's answer (a skip is not expected here). */
async function counted(repo: RateLimitCountersRepository, request: CounterHit): Promise<CounterSnapshot> {
  const snapshot = await repo.hit(request);
  if (!snapshot) throw new Error('the store skipped the request');
  return snapshot;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  db = await createTestDatabase('rate_limit_store', { apps: ['gateway'] });
  admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
});

afterAll(async () => {
  await Promise.all(repositories.map((r) => r.onApplicationShutdown()));
  await admin?.end();
  await db?.drop();
});

describe('RateLimitCountersRepository', () => {
  it('admits and counts up to the quota, then refuses without counting the refused requests', async () => {
    const repo = repository();
    const quotas = { minute: 2, hour: 10, day: 100 };
    const first = await counted(repo, hit('u-basic', quotas));
    expect(first.admitted).toBe(true);
    expect(first.windows.minute).toEqual({ start: expect.any(Number), count: 1, quota: 2 });
    expect(first.windows.day.count).toBe(1);
    expect((await counted(repo, hit('u-basic', quotas))).admitted).toBe(true);
    for (let i = 0; i < 3; i++) {
      const refused = await counted(repo, hit('u-basic', quotas));
      expect(refused.admitted).toBe(false);
      expect(refused.windows.minute.count).toBe(2);
      expect(refused.windows.hour.count).toBe(2);
      expect(refused.windows.day.count).toBe(2);
    }
    const { rows } = await admin.query<{ minute_count: number; last_admitted: boolean }>(
      `SELECT minute_count, last_admitted FROM gateway.rate_limit_counters WHERE user_id = 'u-basic'`,
    );
    expect(rows).toEqual([{ minute_count: 2, last_admitted: false }]);
  });

  it('counts every unit of a weighted request (a GraphQL operation), first on the row and after', async () => {
    const repo = repository();
    const quotas = { minute: 5, hour: 100, day: 1000 };
    const first = await repo.hit(hit('u-units', quotas, { policy: 'graphql' }), () => false, 3);
    expect(first?.admitted).toBe(true);
    expect(first?.windows.minute.count).toBe(3);
    // Admitted while the window has room at all: 3 + 4 takes it past the quota, and the next one waits.
    const second = await repo.hit(hit('u-units', quotas, { policy: 'graphql' }), () => false, 4);
    expect(second?.admitted).toBe(true);
    expect(second?.windows.minute.count).toBe(7);
    expect(second?.windows.hour.count).toBe(7);
    const refused = await repo.hit(hit('u-units', quotas, { policy: 'graphql' }), () => false, 1);
    expect(refused?.admitted).toBe(false);
    expect(refused?.windows.minute.count).toBe(7);
  });

  it('answers with the database clock and window starts aligned to the window length', async () => {
    const repo = repository();
    const before = Date.now() / 1000;
    const snapshot = await counted(
      repo,
      hit(
        'u-clock',
        { minute: 5, hour: 5, day: 5 },
        { windowSeconds: { minute: 60, hour: 3600, day: 86400 } },
      ),
    );
    expect(Math.abs(snapshot.now - before)).toBeLessThan(5);
    expect(snapshot.windows.minute.start % 60).toBe(0);
    expect(snapshot.windows.hour.start % 3600).toBe(0);
    expect(snapshot.windows.day.start % 86400).toBe(0);
    expect(snapshot.now - snapshot.windows.minute.start).toBeLessThan(60);
  });

  it('never admits more than the quota under concurrent requests from two replicas', async () => {
    const replicas = [repository(), repository()];
    const quotas = { minute: 25, hour: 1000, day: 1000 };
    const results = await Promise.all(
      Array.from({ length: 120 }, (_, i) => counted(replicas[i % 2], hit('u-race', quotas))),
    );
    expect(results.filter((r) => r.admitted)).toHaveLength(25);
    const counts = results.filter((r) => r.admitted).map((r) => r.windows.minute.count);
    expect(new Set(counts).size).toBe(25);
  });

  it('refuses a request when any window is full, and names the full ones through the counts', async () => {
    const repo = repository();
    const quotas = { minute: 10, hour: 3, day: 100 };
    for (let i = 0; i < 3; i++) expect((await counted(repo, hit('u-hour', quotas))).admitted).toBe(true);
    const refused = await counted(repo, hit('u-hour', quotas));
    expect(refused.admitted).toBe(false);
    expect(refused.windows.hour).toMatchObject({ count: 3, quota: 3 });
    expect(refused.windows.minute.count).toBe(3);
  });

  it('keeps one counter per user, policy and endpoint', async () => {
    const repo = repository();
    const quotas = { minute: 1, hour: 1, day: 1 };
    expect((await counted(repo, hit('u-scope', quotas))).admitted).toBe(true);
    expect((await counted(repo, hit('u-scope', quotas))).admitted).toBe(false);
    expect(
      (await counted(repo, hit('u-scope', quotas, { policy: 'queue.run', scopeKey: 'ep-a' }))).admitted,
    ).toBe(true);
    expect(
      (await counted(repo, hit('u-scope', quotas, { policy: 'queue.run', scopeKey: 'ep-b' }))).admitted,
    ).toBe(true);
    expect(
      (await counted(repo, hit('u-scope', quotas, { policy: 'queue.run', scopeKey: 'ep-a' }))).admitted,
    ).toBe(false);
    expect((await counted(repo, hit('u-scope-2', quotas))).admitted).toBe(true);
  });

  it("applies the user's override window by window, at once", async () => {
    const repo = repository();
    const quotas = { minute: 1, hour: 50, day: 100 };
    await admin.query(
      `INSERT INTO gateway.rate_limit_overrides (user_id, policy, minute_quota, hour_quota, day_quota, updated_at)
       VALUES ('u-override', 'rest', 3, NULL, NULL, now())`,
    );
    const snapshots = [];
    for (let i = 0; i < 4; i++) snapshots.push(await counted(repo, hit('u-override', quotas)));
    expect(snapshots.map((s) => s.admitted)).toEqual([true, true, true, false]);
    expect(snapshots[0].windows.minute.quota).toBe(3);
    expect(snapshots[0].windows.hour.quota).toBe(50);
    // An override for another policy does not apply.
    expect(
      (await counted(repo, hit('u-override', quotas, { policy: 'queue.run', scopeKey: 'e' }))).windows.minute
        .quota,
    ).toBe(1);
  });

  it('refuses everything under a quota of 0', async () => {
    const repo = repository();
    const snapshot = await counted(repo, hit('u-zero', { minute: 0, hour: 10, day: 10 }));
    expect(snapshot.admitted).toBe(false);
    expect(snapshot.windows.hour.count).toBe(0);
  });

  it('starts a window again from 0 once it has passed', async () => {
    const repo = repository();
    const windows = { minute: 1, hour: 999_999, day: 999_999 };
    const quotas = { minute: 1, hour: 10, day: 10 };
    const first = await counted(repo, hit('u-roll', quotas, { windowSeconds: windows }));
    expect(first.admitted).toBe(true);
    const second = await counted(repo, hit('u-roll', quotas, { windowSeconds: windows }));
    if (second.windows.minute.start === first.windows.minute.start) expect(second.admitted).toBe(false);
    await sleep(Math.ceil((second.windows.minute.start + 1 - second.now) * 1000) + 20);
    const third = await counted(repo, hit('u-roll', quotas, { windowSeconds: windows }));
    expect(third.admitted).toBe(true);
    expect(third.windows.minute.count).toBe(1);
    expect(third.windows.minute.start).toBeGreaterThan(first.windows.minute.start);
    expect(third.windows.hour.count).toBe(second.admitted ? 3 : 2);
  });

  it('queues a burst larger than its pool instead of failing it', async () => {
    const repo = repository({ RATE_LIMIT_POOL_SIZE: 1, RATE_LIMIT_STORE_TIMEOUT_MS: 100 });
    const quotas = { minute: 40, hour: 1000, day: 1000 };
    const results = await Promise.all(
      Array.from({ length: 200 }, () => counted(repo, hit('u-burst', quotas))),
    );
    expect(results.filter((r) => r.admitted)).toHaveLength(40);
  });

  it('answers null without a query when told to skip once it has a connection', async () => {
    const repo = repository();
    expect(await repo.hit(hit('u-skip', { minute: 5, hour: 5, day: 5 }), () => true)).toBeNull();
    const { rows } = await admin.query(`SELECT 1 FROM gateway.rate_limit_counters WHERE user_id = 'u-skip'`);
    expect(rows).toEqual([]);
  });

  it('fails within the store timeout when the counters are locked, and recovers after', async () => {
    const repo = repository({ RATE_LIMIT_STORE_TIMEOUT_MS: 200 });
    const quotas = { minute: 10, hour: 10, day: 10 };
    await counted(repo, hit('u-lock', quotas));
    const locker = new pg.Client({ connectionString: db.url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE gateway.rate_limit_counters IN ACCESS EXCLUSIVE MODE');
      const started = Date.now();
      await expect(counted(repo, hit('u-lock', quotas))).rejects.toThrow(/timeout|cancel/i);
      expect(Date.now() - started).toBeLessThan(2000);
      await locker.query('ROLLBACK');
    } finally {
      await locker.end();
    }
    const after = await counted(repo, hit('u-lock', quotas));
    expect(after.admitted).toBe(true);
    expect(after.windows.minute.count).toBe(2);
  });
});
