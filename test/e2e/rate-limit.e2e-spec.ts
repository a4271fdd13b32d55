import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { parseList, Token } from 'structured-headers';
import { createKey, createUser, keysCli, userWithKey, type TestKey } from '../support/accounts.js';
import { deleteStreams, freshNatsPrefix, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';

/**
 * Per-user rate limits over the running apps (docs/adr/0004-rate-limits.md): three gateway processes on one
 * database and one NATS prefix, with pod-lifecycle behind them.
 *
 * - `a` and `b`: two replicas with the real windows (60, 3600, 86400 s) and small REST quotas;
 * - `tiny`: a third one with test-only windows of 2, 6 and 12 s (RATE_LIMIT_WINDOW_SECONDS, NODE_ENV=test) so
 *   each window can be exhausted and waited out within seconds.
 *
 * Windows are aligned to the Unix epoch on the database's clock, which is this machine's clock: the test can
 * tell where a window starts.
 */

const REST_QUOTAS = { minute: 10, hour: 200, day: 1000 };
const TINY_WINDOWS = { minute: 2, hour: 6, day: 12 };
const TINY_QUOTAS = { minute: 3, hour: 5, day: 7 };
const ROUTE = '/v1/containerregistryauth';
const WINDOW_NAMES = ['minute', 'hour', 'day'];

interface WindowHeader {
  name: string;
  r: number;
  t: number;
  q: number;
  w: number;
}

interface Reply {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
  ms: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Both fields parsed with a structured-field parser; null when neither is present. */
function rateLimits(headers: Headers): WindowHeader[] | null {
  const live = headers.get('ratelimit');
  const policy = headers.get('ratelimit-policy');
  if (live === null && policy === null) return null;
  if (live === null || policy === null) throw new Error(`only one of the fields: ${live ?? policy}`);
  const liveList = parseList(live);
  const policyList = parseList(policy);
  expect(liveList).toHaveLength(3);
  expect(policyList).toHaveLength(3);
  return liveList.map(([name, params], i) => {
    const [policyName, policyParams] = policyList[i];
    // Members are sf-strings ("minute"), not tokens, as the draft requires; single items, not inner lists.
    expect(typeof name).toBe('string');
    expect(name).not.toBeInstanceOf(Token);
    expect(policyName).toBe(name);
    const r = params.get('r') as unknown;
    const t = params.get('t') as unknown;
    const q = policyParams.get('q') as unknown;
    const w = policyParams.get('w') as unknown;
    for (const n of [r, t, q, w]) expect(Number.isInteger(n)).toBe(true);
    return { name: name as string, r: r as number, t: t as number, q: q as number, w: w as number };
  });
}

function byName(windows: WindowHeader[] | null): Record<string, WindowHeader> {
  if (!windows) throw new Error('expected RateLimit headers');
  return Object.fromEntries(windows.map((w) => [w.name, w]));
}

function expectNoRateLimitHeaders(reply: Reply): void {
  expect(reply.headers.get('ratelimit')).toBeNull();
  expect(reply.headers.get('ratelimit-policy')).toBeNull();
  expect(reply.headers.get('retry-after')).toBeNull();
}

describe('per-user rate limits', () => {
  let db: TestDatabase;
  const systems: RunningSystem[] = [];
  let a: RunningSystem;
  let b: RunningSystem;
  let tiny: RunningSystem;
  let natsPrefix: string;
  let alice: TestKey;
  let aliceRead: TestKey;
  let clock: TestKey;
  let windows: TestKey;
  let hammer: TestKey;
  let vip: TestKey;

  async function call(
    system: RunningSystem,
    key: TestKey | string,
    init: { method?: string; body?: unknown } = {},
  ): Promise<Reply> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${typeof key === 'string' ? key : key.key}`,
    };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    const started = performance.now();
    const response = await fetch(`${system.url('gateway')}${ROUTE}`, {
      method: init.method ?? 'GET',
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    const text = await response.text();
    const ms = performance.now() - started;
    let body: Record<string, unknown>;
    try {
      body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      body = {};
    }
    return { status: response.status, headers: response.headers, body, ms };
  }

  /** Waits until `offsetMs` past the next multiple of `windowSeconds` on this machine's (= Postgres') clock. */
  async function alignTo(windowSeconds: number, offsetMs = 60): Promise<number> {
    const length = windowSeconds * 1000;
    const start = Math.ceil(Date.now() / length) * length;
    await sleep(start + offsetMs - Date.now());
    return start;
  }

  /** Leaves at least `seconds` of the current real minute window, waiting for the next one if needed. */
  async function roomInMinute(seconds: number): Promise<void> {
    if (60 - ((Date.now() / 1000) % 60) < seconds) await alignTo(60);
  }

  beforeAll(async () => {
    db = await createTestDatabase('rate_limit', { apps: ['gateway', 'pod-lifecycle'] });
    natsPrefix = freshNatsPrefix();
    const rest = `${REST_QUOTAS.minute},${REST_QUOTAS.hour},${REST_QUOTAS.day}`;
    const started = await Promise.allSettled([
      startApps({
        apps: ['gateway', 'pod-lifecycle'],
        databaseUrl: db.url,
        natsPrefix,
        env: { RATE_LIMIT_REST: rest },
      }),
      startApps({ apps: ['gateway'], databaseUrl: db.url, natsPrefix, env: { RATE_LIMIT_REST: rest } }),
      startApps({
        apps: ['gateway'],
        databaseUrl: db.url,
        natsPrefix,
        env: {
          RATE_LIMIT_WINDOW_SECONDS: `${TINY_WINDOWS.minute},${TINY_WINDOWS.hour},${TINY_WINDOWS.day}`,
          RATE_LIMIT_REST: `${TINY_QUOTAS.minute},${TINY_QUOTAS.hour},${TINY_QUOTAS.day}`,
        },
      }),
    ]);
    for (const result of started) if (result.status === 'fulfilled') systems.push(result.value);
    const failed = started.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    [a, b, tiny] = systems;

    alice = await userWithKey(db.url, 'alice');
    aliceRead = await createKey(db.url, 'alice', 'read');
    clock = await userWithKey(db.url, 'clock');
    windows = await userWithKey(db.url, 'windows');
    hammer = await userWithKey(db.url, 'hammer');
    await createUser(db.url, 'vip', { exempt: true });
    vip = await createKey(db.url, 'vip');
  });

  afterAll(async () => {
    await Promise.all(systems.map((s) => s.stop()));
    if (natsPrefix) await deleteStreams(natsPrefix);
    await db?.drop();
  });

  it('reports r and t counting down and the configured q and w, per window, on every replica', async () => {
    await roomInMinute(8);
    const first = byName(rateLimits((await call(a, clock)).headers));
    expect(Object.keys(first)).toEqual(WINDOW_NAMES);
    expect(first.minute).toMatchObject({ r: REST_QUOTAS.minute - 1, q: REST_QUOTAS.minute, w: 60 });
    expect(first.hour).toMatchObject({ r: REST_QUOTAS.hour - 1, q: REST_QUOTAS.hour, w: 3600 });
    expect(first.day).toMatchObject({ r: REST_QUOTAS.day - 1, q: REST_QUOTAS.day, w: 86400 });
    for (const w of Object.values(first)) {
      expect(w.t).toBeGreaterThanOrEqual(1);
      expect(w.t).toBeLessThanOrEqual(w.w);
    }
    // t is the time to the window's end: the windows are aligned to the epoch.
    const now = Date.now() / 1000;
    expect(Math.abs(first.minute.t - (60 - (now % 60)))).toBeLessThanOrEqual(1.5);
    expect(Math.abs(first.day.t - (86400 - (now % 86400)))).toBeLessThanOrEqual(1.5);

    await sleep(1100);
    // The second replica sees the first one's count.
    const second = byName(rateLimits((await call(b, clock)).headers));
    for (const name of WINDOW_NAMES) {
      expect(second[name].r).toBe(first[name].r - 1);
      expect(second[name].t).toBeLessThan(first[name].t);
      expect(second[name]).toMatchObject({ q: first[name].q, w: first[name].w });
    }
    const third = byName(rateLimits((await call(a, clock)).headers));
    expect(third.minute.r).toBe(first.minute.r - 2);
    expect(third.day.r).toBe(first.day.r - 2);
  });

  it('puts the headers on 403 and 422 too, counting them, and none on 401 or a body the parser rejects', async () => {
    await roomInMinute(8);
    const ok = await call(a, alice);
    expect(ok.status).toBe(200);
    const before = byName(rateLimits(ok.headers)).minute.r;

    const forbidden = await call(a, aliceRead, {
      method: 'POST',
      body: { name: 'r', username: 'u', password: 'p' },
    });
    expect(forbidden.status).toBe(403);
    expect(byName(rateLimits(forbidden.headers)).minute.r).toBe(before - 1);

    // On the same replica: another one would see this replica's counts only after a flush (ADR 0012).
    const invalid = await call(a, alice, {
      method: 'POST',
      body: { name: 'r', username: 'u', password: 'p', unknown: true },
    });
    expect(invalid.status).toBe(422);
    expect(invalid.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(byName(rateLimits(invalid.headers)).minute.r).toBe(before - 2);

    const unauthenticated = await call(a, 'cpk_not-a-key');
    expect(unauthenticated.status).toBe(401);
    expectNoRateLimitHeaders(unauthenticated);

    // Fastify's body parser rejects malformed JSON before the route (and so authentication) runs: that 400
    // carries no rate-limit headers and is not counted (docs/adr/0004-rate-limits.md, "Limitations").
    const malformed = await fetch(`${a.url('gateway')}${ROUTE}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice.key}`, 'content-type': 'application/json' },
      body: '{"name": ',
    });
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get('ratelimit')).toBeNull();

    const created = await call(a, alice, {
      method: 'POST',
      body: { name: 'r1', username: 'u', password: 'p' },
    });
    expect(created.status).toBe(201);
    expect(byName(rateLimits(created.headers)).minute.r).toBe(before - 3);
  });

  it('refuses the minute, then the hour, then the day window with 429, Retry-After, and admits after it', async () => {
    const expectAdmitted = async (remaining: [number, number, number]) => {
      const reply = await call(tiny, windows);
      expect(reply.status).toBe(200);
      const w = byName(rateLimits(reply.headers));
      expect([w.minute.r, w.hour.r, w.day.r]).toEqual(remaining);
      expect([w.minute.q, w.hour.q, w.day.q]).toEqual([
        TINY_QUOTAS.minute,
        TINY_QUOTAS.hour,
        TINY_QUOTAS.day,
      ]);
      expect([w.minute.w, w.hour.w, w.day.w]).toEqual([
        TINY_WINDOWS.minute,
        TINY_WINDOWS.hour,
        TINY_WINDOWS.day,
      ]);
    };
    /** A 429 naming `window`, whose Retry-After is the seconds left until `windowEnd` (ms), rounded up. */
    const expectRefused = async (window: 'minute' | 'hour' | 'day', windowEnd: number): Promise<number> => {
      const reply = await call(tiny, windows);
      expect(reply.status).toBe(429);
      expect(reply.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(reply.body).toMatchObject({ title: 'Too Many Requests', status: 429 });
      expect(String(reply.body.detail)).toMatch(new RegExp(`\\b${window} window\\b`));
      for (const other of WINDOW_NAMES.filter((n) => n !== window)) {
        expect(String(reply.body.detail)).not.toMatch(new RegExp(`\\b${other}\\b`));
      }
      const retryAfter = reply.headers.get('retry-after') ?? '';
      expect(retryAfter).toMatch(/^\d+$/);
      const seconds = Number(retryAfter);
      const expected = (windowEnd - Date.now()) / 1000;
      expect(seconds).toBeGreaterThanOrEqual(Math.floor(expected));
      expect(seconds).toBeLessThanOrEqual(Math.ceil(expected) + 1);
      const headers = byName(rateLimits(reply.headers));
      expect(headers[window]).toMatchObject({ r: 0, t: seconds });
      return seconds;
    };

    // Start at the beginning of a day window, which is also the start of an hour and a minute window.
    const day = await alignTo(TINY_WINDOWS.day);
    await expectAdmitted([2, 4, 6]);
    await expectAdmitted([1, 3, 5]);
    await expectAdmitted([0, 2, 4]);
    const minuteWait = await expectRefused('minute', day + TINY_WINDOWS.minute * 1000);
    await expectRefused('minute', day + TINY_WINDOWS.minute * 1000); // refusals count nowhere
    await sleep(minuteWait * 1000);

    await expectAdmitted([2, 1, 3]);
    await expectAdmitted([1, 0, 2]);
    const hourWait = await expectRefused('hour', day + TINY_WINDOWS.hour * 1000);
    await sleep(hourWait * 1000);

    await expectAdmitted([2, 4, 1]);
    await expectAdmitted([1, 3, 0]);
    const dayWait = await expectRefused('day', day + TINY_WINDOWS.day * 1000);
    await sleep(dayWait * 1000);

    await expectAdmitted([2, 4, 6]);
  });

  it('admits the quota, and at most (N-1) x quota more, when two gateway processes are hammered at once', async () => {
    const quota = 37;
    expect(await keysCli(db.url, ['limits', 'set', 'hammer', '--minute', String(quota)])).toMatch(
      new RegExp(`\\trest\\tminute=${quota}\\thour=-\\tday=-$`),
    );
    await roomInMinute(20);
    const replies = await Promise.all(
      Array.from({ length: 150 }, (_, i) => call(i % 2 === 0 ? a : b, hammer)),
    );
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    // Each replica decides in memory from the shared total it last saw plus its own unflushed count
    // (docs/adr/0012-edge-auth-cache-and-limiter.md): a burst faster than a flush interval may be admitted by
    // both, never more than the quota by either, never less than the quota in all.
    const admitted = statuses.filter((s) => s === 200).length;
    expect(admitted).toBeGreaterThanOrEqual(quota);
    expect(admitted).toBeLessThanOrEqual(2 * quota);
    for (const reply of replies) {
      const w = byName(rateLimits(reply.headers));
      expect(w.minute).toMatchObject({ q: quota, w: 60 });
      expect(w.hour.q).toBe(REST_QUOTAS.hour);
      if (reply.status === 429) {
        expect(String(reply.body.detail)).toMatch(/\bminute window\b/);
        expect(Number(reply.headers.get('retry-after'))).toBe(w.minute.t);
      }
    }
    // Within a replica, each admitted request saw a distinct count.
    for (const replica of [0, 1]) {
      const remaining = replies
        .filter((r, i) => i % 2 === replica && r.status === 200)
        .map((r) => byName(rateLimits(r.headers)).minute.r);
      expect(new Set(remaining).size).toBe(remaining.length);
    }
    // Every admission reached the shared counter, and both replicas refuse once they have flushed.
    await sleep(500);
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    const { rows } = await admin
      .query<{ minute_count: number }>(
        `SELECT minute_count FROM gateway.rate_limit_counters c JOIN gateway.users u ON u.id = c.user_id
         WHERE u.name = 'hammer' AND c.policy = 'rest'`,
      )
      .finally(() => admin.end());
    expect(rows).toEqual([{ minute_count: admitted }]);
    expect((await call(a, hammer)).status).toBe(429);
    expect((await call(b, hammer)).status).toBe(429);
    expect(await keysCli(db.url, ['limits', 'list', 'hammer'])).toContain('minute=37');
  });

  it('sends exempt users no rate-limit headers and never refuses them, until the exemption is lifted', async () => {
    for (let i = 0; i < TINY_QUOTAS.day + 3; i++) {
      const reply = await call(i % 2 === 0 ? tiny : a, vip);
      expect(reply.status).toBe(200);
      expectNoRateLimitHeaders(reply);
    }
    await keysCli(db.url, ['user', 'exempt', 'vip', '--off'], natsPrefix);
    const limited = await call(a, vip);
    expect(limited.status).toBe(200);
    expect(byName(rateLimits(limited.headers)).minute.r).toBe(REST_QUOTAS.minute - 1);
    await keysCli(db.url, ['user', 'exempt', 'vip'], natsPrefix);
    expectNoRateLimitHeaders(await call(a, vip));
  });

  it('fails open when the counter store does not answer: admitted, no headers, a metric, then back', async () => {
    await roomInMinute(10);
    /** The value of the sample of `name` carrying every label of `labels`. */
    const metric = async (system: RunningSystem, name: string, labels: string[]): Promise<number> => {
      const text = await (await fetch(system.metricsUrl('gateway'))).text();
      const line = text
        .split('\n')
        .find((l) => l.startsWith(`${name}{`) && labels.every((label) => l.includes(label)));
      return line ? Number(line.split(' ').pop()) : 0;
    };
    const failOpen = () =>
      metric(a, 'gateway_rate_limit_requests_total', ['policy="rest"', 'outcome="fail_open"']);
    const timeouts = () => metric(a, 'gateway_rate_limit_store_failures_total', ['reason="timeout"']);
    const failOpenBefore = await failOpen();

    const locker = new pg.Client({ connectionString: db.url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE gateway.rate_limit_counters IN ACCESS EXCLUSIVE MODE');
      for (let i = 0; i < REST_QUOTAS.minute + 2; i++) {
        const reply = await call(a, alice);
        expect(reply.status).toBe(200);
        expectNoRateLimitHeaders(reply);
        expect(reply.ms).toBeLessThan(2000);
      }
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      await locker.end();
    }
    expect(await failOpen()).toBe(failOpenBefore + REST_QUOTAS.minute + 2);
    expect(await timeouts()).toBeGreaterThanOrEqual(1);
    expect(a.logs('gateway')).toMatch(/rate-limit store unavailable/);

    await sleep(1100); // RATE_LIMIT_STORE_BACKOFF_MS
    const back = await call(a, alice);
    expect(back.status).toBe(200);
    expect(rateLimits(back.headers)).not.toBeNull();
  });
});
