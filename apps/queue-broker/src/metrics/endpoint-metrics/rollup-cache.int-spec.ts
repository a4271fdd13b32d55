import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { appDataSourceOptions } from '@app/database';
import { createTestDatabase, type TestDatabase } from '../../../../../test/support/test-database.js';
import { DATA_SOURCE_SPEC } from '../../data-source.js';
import { MetricsRepository } from '../metrics.repository.js';
import { RollupDeltas } from '../rollup-deltas.js';
import { RollupCache } from './rollup-cache.js';

const HOUR = 3_600_000;

/**
 * The metrics reader's copy of the rollups against real Postgres: a read after the first asks only for the rows
 * changed since, and still sees every write, including one whose transaction started before the previous read and
 * committed after it.
 */
describe('RollupCache', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let metrics: MetricsRepository;
  let cache: RollupCache;
  /** What each read asked Postgres for and how many rows came back. */
  let reads: { changedSince: number | null; rows: number }[];
  let endpointId: string;
  let seq = 0;

  const now = () => new Date();
  const hourAgo = (hours: number) => new Date(Math.floor(Date.now() / HOUR) * HOUR - hours * HOUR);
  const completedAt = (at: Date, count = 1) => {
    const deltas = new RollupDeltas();
    for (let i = 0; i < count; i++) deltas.add(endpointId, at, (row) => (row.completed += 1));
    return deltas;
  };
  const hourCompleted = (rows: { bucketStart: Date; completed: number }[], at: Date) =>
    rows.find((row) => row.bucketStart.getTime() === at.getTime())?.completed;
  /** Dates the rows' last change back, as for rows written long before this read. */
  const age = (ms: number) =>
    dataSource.query(
      `UPDATE queue_broker.endpoint_metric_rollups SET updated_at = now() - $2 * interval '1 millisecond'
       WHERE endpoint_id = $1`,
      [endpointId, ms],
    );

  beforeAll(async () => {
    db = await createTestDatabase('rollup_cache', { apps: ['queue-broker'] });
    dataSource = new DataSource(appDataSourceOptions(DATA_SOURCE_SPEC, db.url, 3));
    await dataSource.initialize();
    metrics = new MetricsRepository(dataSource);
    const readChanged = metrics.readChanged.bind(metrics);
    metrics.readChanged = async (...args) => {
      const result = await readChanged(...args);
      reads.push({ changedSince: args[3], rows: result.rows.length });
      return result;
    };
  });

  beforeEach(() => {
    endpointId = `ep-${++seq}`;
    cache = new RollupCache(metrics);
    reads = [];
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  it('reads the week once, then only the rows changed since, and sees a change to a closed hour', async () => {
    for (let h = 0; h < 10; h++) await metrics.add(completedAt(hourAgo(h), h + 1), dataSource.manager);
    await age(HOUR);

    const first = await cache.window(endpointId, '7d', now());
    expect(first).toHaveLength(10);
    expect(hourCompleted(first, hourAgo(9))).toBe(10);
    expect(reads[0]).toEqual({ changedSince: null, rows: 10 });

    const second = await cache.window(endpointId, '24h', now());
    expect(second.map((row) => row.completed)).toEqual(first.map((row) => row.completed));
    expect(reads[1].changedSince).not.toBeNull();
    expect(reads[1].rows).toBe(0);

    // A late fold into an hour that closed long ago, and a new row.
    await metrics.add(completedAt(hourAgo(7), 5), dataSource.manager);
    await metrics.add(completedAt(hourAgo(12)), dataSource.manager);
    const third = await cache.window(endpointId, '7d', now());
    expect(reads[2].rows).toBe(2);
    expect(third).toHaveLength(11);
    expect(hourCompleted(third, hourAgo(7))).toBe(8 + 5);
    expect(hourCompleted(third, hourAgo(12))).toBe(1);
    // The 24h window shares the copy and leaves out nothing and nothing more.
    expect(await cache.window(endpointId, '24h', now())).toHaveLength(11);
  });

  it('sees a write whose transaction started before a read and committed after it', async () => {
    await metrics.add(completedAt(hourAgo(3)), dataSource.manager);
    await age(HOUR);
    await cache.window(endpointId, '7d', now());

    const runner = dataSource.createQueryRunner();
    await runner.startTransaction();
    try {
      await metrics.add(completedAt(hourAgo(3), 4), runner.manager);
      // Its `updated_at` is its transaction's start, before this read, which cannot see it yet.
      const during = await cache.window(endpointId, '7d', now());
      expect(hourCompleted(during, hourAgo(3))).toBe(1);
      await runner.commitTransaction();
    } finally {
      await runner.release();
    }
    const after = await cache.window(endpointId, '7d', now());
    expect(hourCompleted(after, hourAgo(3))).toBe(5);
  });

  it('answers each window with its own steps: 5m of the minutes it shares with 1h', async () => {
    const minute = (m: number) => new Date(Math.floor(Date.now() / 60_000) * 60_000 - m * 60_000);
    for (const m of [0, 2, 4, 6, 30]) await metrics.add(completedAt(minute(m)), dataSource.manager);

    const hour = await cache.window(endpointId, '1h', now());
    const five = await cache.window(endpointId, '5m', now());
    expect(hour.map((row) => row.bucketStart.getTime())).toEqual(
      [30, 6, 4, 2, 0].map((m) => minute(m).getTime()),
    );
    expect(five.map((row) => row.bucketStart.getTime())).toEqual([4, 2, 0].map((m) => minute(m).getTime()));
    // The hour rows are another resolution, read on their own.
    const hours = new Set([0, 2, 4, 6, 30].map((m) => Math.floor(minute(m).getTime() / HOUR)));
    expect(await cache.window(endpointId, '24h', now())).toHaveLength(hours.size);
  });
});
