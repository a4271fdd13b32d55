import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import pg from 'pg';
import { GatewayConfig } from '../gateway.config.js';
import { SCHEMA } from '../schema.js';
import type { CounterSnapshot } from './rate-limit-decision.js';
import {
  counterKey,
  type CounterHit,
  type CounterIncrement,
  type SharedCounter,
} from './rate-limit-local-counters.js';
import { RATE_LIMIT_WINDOWS, type RateLimitWindow } from '../rate-limit-policies.js';

export type { CounterHit } from './rate-limit-local-counters.js';

const COUNTERS = `"${SCHEMA}"."rate_limit_counters"`;
const OVERRIDES = `"${SCHEMA}"."rate_limit_overrides"`;

/** $4..$6: window lengths; $7..$9: default quotas (minute, hour, day); $10: the request's units. */
const WINDOW_PARAM: Record<RateLimitWindow, { length: string; quota: string }> = {
  minute: { length: '$4::int', quota: '$7::int' },
  hour: { length: '$5::int', quota: '$8::int' },
  day: { length: '$6::int', quota: '$9::int' },
};

/** The existing row's count in the current window: 0 once the window it counted has passed. */
const current = (w: RateLimitWindow) =>
  `(CASE WHEN c.${w}_start >= excluded.${w}_start THEN c.${w}_count ELSE 0 END)`;

/**
 * Room left in every window: the request is admitted only if so, and then counted in all three with all its units
 * (a weighted GraphQL operation may so take a window past its quota; the requests after it wait for the window).
 */
const ADMIT_EXISTING = RATE_LIMIT_WINDOWS.map((w) => `${current(w)} < excluded.${w}_quota`).join(' AND ');

/**
 * ONE statement per request, atomic across every gateway replica: the upsert takes the row lock of
 * (user, policy, scope), so concurrent requests of one user queue on it and each sees the count the previous
 * one left. A rejected request changes no count. Window starts are multiples of the window length on the
 * database's clock (`clock_timestamp()`), the one clock all replicas share; a row whose window has passed
 * starts it again from 0. The user's override, if any, is joined in, so it needs no extra round trip.
 */
export const HIT_STATEMENT = `
WITH clock AS (SELECT extract(epoch FROM clock_timestamp())::float8 AS now),
quota AS (
  SELECT ${RATE_LIMIT_WINDOWS.map((w) => `coalesce(o.${w}_quota, ${WINDOW_PARAM[w].quota}) AS ${w}_quota`).join(', ')}
  FROM (VALUES (1)) AS one (x)
  LEFT JOIN ${OVERRIDES} o ON o.user_id = $1 AND o.policy = $2
),
fresh AS (
  SELECT ${RATE_LIMIT_WINDOWS.map((w) => `(floor(clock.now / ${WINDOW_PARAM[w].length}) * ${WINDOW_PARAM[w].length})::bigint AS ${w}_start`).join(', ')},
    quota.*,
    (${RATE_LIMIT_WINDOWS.map((w) => `quota.${w}_quota > 0`).join(' AND ')}) AS admit
  FROM clock, quota
)
INSERT INTO ${COUNTERS} AS c (user_id, policy, scope_key,
  ${RATE_LIMIT_WINDOWS.map((w) => `${w}_start, ${w}_count, ${w}_quota`).join(', ')}, last_admitted, updated_at)
SELECT $1, $2, $3,
  ${RATE_LIMIT_WINDOWS.map((w) => `${w}_start, admit::int * $10::int, ${w}_quota`).join(', ')}, admit, clock_timestamp()
FROM fresh
ON CONFLICT (user_id, policy, scope_key) DO UPDATE SET
  ${RATE_LIMIT_WINDOWS.map(
    (w) =>
      `${w}_start = greatest(c.${w}_start, excluded.${w}_start), ${w}_count = ${current(w)} + (${ADMIT_EXISTING})::int * $10::int, ${w}_quota = excluded.${w}_quota`,
  ).join(',\n  ')},
  last_admitted = (${ADMIT_EXISTING}),
  updated_at = excluded.updated_at
RETURNING last_admitted, extract(epoch FROM clock_timestamp())::float8 AS now,
  ${RATE_LIMIT_WINDOWS.map((w) => `${w}_start::float8, ${w}_count, ${w}_quota`).join(', ')}`;

/**
 * ONE statement per flush for every counter a replica touched since the last one
 * (docs/adr/0012-edge-auth-cache-and-limiter.md): adds what the replica admitted locally (unconditionally: those
 * requests were answered already) and answers every counter's total, all replicas' counts and the user's
 * override included. Rows are written in key order, the same on every replica, so two replicas' flushes never
 * deadlock. Window starts and rollover as in HIT_STATEMENT. A counter sent with 0 (it only refused) is written
 * too: one row per active counter per flush interval, what keeps the statement single.
 */
export const FLUSH_STATEMENT = `
WITH clock AS (SELECT extract(epoch FROM clock_timestamp())::float8 AS now),
input AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int[],
    ${RATE_LIMIT_WINDOWS.map((_, i) => `$${5 + i}::int[]`).join(', ')},
    ${RATE_LIMIT_WINDOWS.map((_, i) => `$${8 + i}::int[]`).join(', ')})
    AS i (user_id, policy, scope_key, increment,
      ${RATE_LIMIT_WINDOWS.map((w) => `${w}_length`).join(', ')},
      ${RATE_LIMIT_WINDOWS.map((w) => `${w}_default`).join(', ')})
),
fresh AS (
  SELECT i.user_id, i.policy, i.scope_key, i.increment,
    ${RATE_LIMIT_WINDOWS.map((w) => `(floor(clock.now / i.${w}_length) * i.${w}_length)::bigint AS ${w}_start`).join(', ')},
    ${RATE_LIMIT_WINDOWS.map((w) => `coalesce(o.${w}_quota, i.${w}_default) AS ${w}_quota`).join(', ')}
  FROM input i CROSS JOIN clock
  LEFT JOIN ${OVERRIDES} o ON o.user_id = i.user_id AND o.policy = i.policy
)
INSERT INTO ${COUNTERS} AS c (user_id, policy, scope_key,
  ${RATE_LIMIT_WINDOWS.map((w) => `${w}_start, ${w}_count, ${w}_quota`).join(', ')}, last_admitted, updated_at)
SELECT user_id, policy, scope_key,
  ${RATE_LIMIT_WINDOWS.map((w) => `${w}_start, increment, ${w}_quota`).join(', ')}, increment > 0, clock_timestamp()
FROM fresh
ORDER BY user_id, policy, scope_key
ON CONFLICT (user_id, policy, scope_key) DO UPDATE SET
  ${RATE_LIMIT_WINDOWS.map(
    (w) =>
      `${w}_start = greatest(c.${w}_start, excluded.${w}_start), ${w}_count = ${current(w)} + excluded.${w}_count, ${w}_quota = excluded.${w}_quota`,
  ).join(',\n  ')},
  updated_at = excluded.updated_at
RETURNING user_id, policy, scope_key, extract(epoch FROM clock_timestamp())::float8 AS now,
  ${RATE_LIMIT_WINDOWS.map((w) => `${w}_start::float8, ${w}_count, ${w}_quota`).join(', ')}`;

/**
 * Longest wait for a connection: a new one, or a turn on one of the pool's while a burst is being counted. Longer
 * than the statement timeout on purpose: a burst must queue for the limiter, not slip past it (fail open).
 */
const CONNECT_TIMEOUT_MS = 2000;

type WindowColumns = Record<`${RateLimitWindow}_${'start' | 'count' | 'quota'}`, number>;
type HitRow = { last_admitted: boolean; now: number } & WindowColumns;
type FlushRow = { user_id: string; policy: string; scope_key: string; now: number } & WindowColumns;

function windowsOf(row: WindowColumns): SharedCounter['windows'] {
  const window = (w: RateLimitWindow) => ({
    start: row[`${w}_start`],
    count: row[`${w}_count`],
    quota: row[`${w}_quota`],
  });
  return { minute: window('minute'), hour: window('hour'), day: window('day') };
}

/**
 * The shared counters, in the gateway's own schema. It has a small pg pool of its own, apart from the app's
 * TypeORM pool: the statement is bounded by RATE_LIMIT_STORE_TIMEOUT_MS (`statement_timeout`, cancelled by the
 * server, plus a client-side read timeout), getting a connection by CONNECT_TIMEOUT_MS, and a stalled store can
 * hold at most this pool, never the connections authentication and the handlers need. Commits are asynchronous
 * (`synchronous_commit=off`): a Postgres crash may forget the last fraction of a second of counts, which a rate
 * limiter can afford; visibility and locking, what the atomicity rests on, are unaffected.
 */
@Injectable()
export class RateLimitCountersRepository implements OnApplicationShutdown {
  private readonly pool: pg.Pool;

  constructor(config: GatewayConfig) {
    const timeout = config.RATE_LIMIT_STORE_TIMEOUT_MS;
    this.pool = new pg.Pool({
      connectionString: config.DATABASE_URL,
      max: config.RATE_LIMIT_POOL_SIZE,
      connectionTimeoutMillis: Math.max(CONNECT_TIMEOUT_MS, timeout),
      statement_timeout: timeout,
      query_timeout: timeout + 50,
      idleTimeoutMillis: 60_000,
      application_name: 'gateway-rate-limit',
      options: '-c synchronous_commit=off',
    });
    // An idle connection dropped by the server must not crash the process; the next checkout reconnects.
    this.pool.on('error', () => undefined);
  }

  /**
   * Counts the request (`units` of it) if every window has room; answers the verdict and the counters after it.
   * `skip` is asked once a connection is had: when it says so (the store failed meanwhile), null is answered
   * without a query, so requests queued behind a failing store do not each wait for their own timeout.
   */
  async hit(hit: CounterHit, skip: () => boolean = () => false, units = 1): Promise<CounterSnapshot | null> {
    const client = await this.pool.connect();
    let rows: HitRow[];
    try {
      if (skip()) {
        client.release();
        return null;
      }
      ({ rows } = await client.query<HitRow>(HIT_STATEMENT, [
        hit.userId,
        hit.policy,
        hit.scopeKey,
        ...RATE_LIMIT_WINDOWS.map((w) => hit.windowSeconds[w]),
        ...RATE_LIMIT_WINDOWS.map((w) => hit.defaultQuotas[w]),
        units,
      ]));
    } catch (error) {
      // The connection's state is unknown after a timeout: do not pool it again.
      client.release(error as Error);
      throw error;
    }
    client.release();
    const row = rows[0];
    return { admitted: row.last_admitted, now: row.now, windows: windowsOf(row) };
  }

  /** Adds every increment and answers each counter's total, by `counterKey`, in one statement. */
  async flush(batch: readonly CounterIncrement[]): Promise<Map<string, SharedCounter>> {
    const column = <T>(pick: (item: CounterIncrement) => T) => batch.map(pick);
    const { rows } = await this.pool.query<FlushRow>(FLUSH_STATEMENT, [
      column((b) => b.hit.userId),
      column((b) => b.hit.policy),
      column((b) => b.hit.scopeKey),
      column((b) => b.increment),
      ...RATE_LIMIT_WINDOWS.map((w) => column((b) => b.hit.windowSeconds[w])),
      ...RATE_LIMIT_WINDOWS.map((w) => column((b) => b.hit.defaultQuotas[w])),
    ]);
    return new Map(
      rows.map((row) => [
        counterKey({ userId: row.user_id, policy: row.policy, scopeKey: row.scope_key }),
        { now: row.now, windows: windowsOf(row) },
      ]),
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.pool.end();
  }
}
