import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { EndpointRollupEntity } from './endpoint-rollup.entity.js';
import {
  RollupDeltas,
  bucketStartOf,
  type GaugeSample,
  type PhaseHistogram,
  type RollupDelta,
} from './rollup-deltas.js';
import { PHASE_COLUMNS, intArray, phaseHistograms } from './rollup-text.js';

const ADDITIVE = [
  'completed',
  'failed',
  'cancelled',
  'timed_out',
  'retried',
  'cold_starts',
  'webhooks_delivered',
  'webhooks_failed',
  'webhooks_gave_up',
] as const;
const HISTOGRAMS = ['delay_hist', 'exec_hist', 'cold_hist', ...PHASE_COLUMNS.map(([, column]) => column)];
const GAUGES = [
  'queue_depth',
  'oldest_age_ms',
  'workers_running',
  'workers_idle',
  'workers_initializing',
  'workers_throttled',
  'workers_unhealthy',
] as const;

type HistogramField = 'delayHist' | 'execHist' | 'coldHist' | 'lbLatencyHist' | PhaseHistogram;

/** Rows per statement: 20 parameters each, well under Postgres' 65,535. */
const CHUNK = 500;

/** Jobs finished and retried in a window, as /health reports them (failed includes timed out). */
export interface WindowCounts {
  completed: number;
  failed: number;
  retried: number;
}

/** The rollup rows, as the query handler reads them (histograms as arrays of counts). */
export type RollupRow = Omit<EndpointRollupEntity, 'endpointId' | 'stepS' | 'updatedAt'>;

/** The database's clock at a read (epoch ms), beside the rows. */
type ReadClock = { readAt: number };

/** Rollups of endpoint metrics (docs/adr/0022-endpoint-metrics.md): upserts, reads, the cursor, retention. */
@Injectable()
export class MetricsRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** Adds the deltas to their rows (counters summed, histograms added bucket by bucket). */
  async add(deltas: RollupDeltas, manager: EntityManager): Promise<void> {
    const rows = deltas.list();
    for (let i = 0; i < rows.length; i += CHUNK) await this.addChunk(rows.slice(i, i + CHUNK), manager);
  }

  private async addChunk(rows: RollupDelta[], manager: EntityManager): Promise<void> {
    const params: unknown[] = [];
    const tuples = rows.map((r) => {
      const values: unknown[] = [r.endpointId, r.stepS, r.bucketStart, r.completed, r.failed, r.cancelled];
      values.push(r.timedOut);
      values.push(r.retried, r.coldStarts, r.webhooksDelivered, r.webhooksFailed, r.webhooksGaveUp);
      values.push(r.delayHist, r.execHist, r.coldHist, ...PHASE_COLUMNS.map(([field]) => r[field]));
      const base = params.length;
      params.push(...values);
      const cast = (k: number) => (k >= 12 ? '::int[]' : k === 2 ? '::timestamptz' : '');
      return `(${values.map((_, k) => `$${base + k + 1}${cast(k)}`).join(', ')})`;
    });
    await manager.query(
      `INSERT INTO queue_broker.endpoint_metric_rollups AS r (endpoint_id, step_s, bucket_start,
         completed, failed, cancelled, timed_out, retried, cold_starts, webhooks_delivered, webhooks_failed,
         webhooks_gave_up, ${HISTOGRAMS.join(', ')})
       VALUES ${tuples.join(', ')}
       ON CONFLICT (endpoint_id, step_s, bucket_start) DO UPDATE SET
         ${ADDITIVE.map((c) => `${c} = r.${c} + EXCLUDED.${c}`).join(', ')},
         ${HISTOGRAMS.map((c) => `${c} = queue_broker.metrics_hist_add(r.${c}, EXCLUDED.${c})`).join(', ')},
         updated_at = now()`,
      params,
    );
  }

  /** Raises each gauge of the sample's rows (every resolution) to the sampled value if higher. */
  async raiseGauges(samples: GaugeSample[], at: Date, steps: readonly number[]): Promise<void> {
    if (!samples.length) return;
    const params: unknown[] = [];
    const tuples: string[] = [];
    const sorted = [...samples].sort((a, b) => (a.endpointId < b.endpointId ? -1 : 1));
    for (const stepS of steps) {
      for (const s of sorted) {
        const values: unknown[] = [
          s.endpointId,
          stepS,
          bucketStartOf(at, stepS),
          s.queueDepth,
          s.oldestAgeMs,
        ];
        values.push(s.workersRunning, s.workersIdle, s.workersInitializing, s.workersThrottled);
        values.push(s.workersUnhealthy);
        const base = params.length;
        params.push(...values);
        tuples.push(
          `(${values.map((_, k) => `$${base + k + 1}${k === 2 ? '::timestamptz' : ''}`).join(', ')})`,
        );
      }
    }
    await this.dataSource.query(
      `INSERT INTO queue_broker.endpoint_metric_rollups AS r (endpoint_id, step_s, bucket_start, ${GAUGES.join(', ')})
       VALUES ${tuples.join(', ')}
       ON CONFLICT (endpoint_id, step_s, bucket_start) DO UPDATE SET
         ${GAUGES.map((c) => `${c} = GREATEST(r.${c}, EXCLUDED.${c})`).join(', ')}, updated_at = now()`,
      params,
    );
  }

  /**
   * What /health counts: the endpoint's minute rollups from `since` on. Read from the rollups rather than counted in
   * each finishing transaction: a counter row per endpoint and minute, updated by every job's finish, was a lock
   * that every lane of every broker replica queued on (as often as on the commit's fsync). The rollups trail the
   * commits by the fold's lag (the job events' relay and one fold, about a second).
   */
  /** Each endpoint's finished jobs since `since` (those with none are absent), from the per-minute rollups. */
  async windowCounts(endpointIds: string[], since: Date): Promise<Map<string, WindowCounts>> {
    const rows = await this.dataSource.query<(WindowCounts & { endpointId: string })[]>(
      `SELECT endpoint_id AS "endpointId", COALESCE(SUM(completed), 0)::int AS completed,
              COALESCE(SUM(failed + timed_out), 0)::int AS failed, COALESCE(SUM(retried), 0)::int AS retried
         FROM queue_broker.endpoint_metric_rollups
        WHERE endpoint_id = ANY($1) AND step_s = 60 AND bucket_start >= $2
        GROUP BY endpoint_id`,
      [endpointIds, since],
    );
    return new Map(rows.map(({ endpointId, ...counts }) => [endpointId, counts]));
  }

  /** The endpoint's rows of one resolution from `from` on, oldest first (the primary key's range). */
  async read(endpointId: string, stepS: number, from: Date): Promise<RollupRow[]> {
    return (await this.readChanged(endpointId, stepS, from, null)).rows;
  }

  /**
   * The endpoint's rows of one resolution from `from` on, only those changed at or after `changedSince` when given
   * (by `updated_at`, the writer's transaction start), and the database's clock at the read, both by Postgres'
   * clock. Histograms come as text and are split here, times as epoch milliseconds: node-postgres' generic array
   * and timestamp parsers took 4 of the 5 ms that a week of rows cost.
   */
  async readChanged(
    endpointId: string,
    stepS: number,
    from: Date,
    changedSince: number | null,
  ): Promise<{ rows: RollupRow[]; readAt: number }> {
    // One round trip: the clock row always comes back, joined to whatever rows qualify.
    const rows = await this.dataSource.query<(RollupRow & Record<HistogramField, string> & ReadClock)[]>(
      `SELECT (extract(epoch FROM c.now) * 1000)::float8 AS "readAt", r.* FROM (SELECT now()) c
       LEFT JOIN LATERAL (
         SELECT (extract(epoch FROM bucket_start) * 1000)::float8 AS "bucketStart", completed, failed, cancelled,
           timed_out AS "timedOut", retried, delay_hist::text AS "delayHist", exec_hist::text AS "execHist",
           cold_starts AS "coldStarts", cold_hist::text AS "coldHist", queue_depth AS "queueDepth",
           oldest_age_ms::float8 AS "oldestAgeMs", workers_running AS "workersRunning", workers_idle AS "workersIdle",
           workers_initializing AS "workersInitializing", workers_throttled AS "workersThrottled",
           workers_unhealthy AS "workersUnhealthy", webhooks_delivered AS "webhooksDelivered",
           webhooks_failed AS "webhooksFailed", webhooks_gave_up AS "webhooksGaveUp",
           lb_2xx AS "lb2xx", lb_4xx AS "lb4xx", lb_5xx AS "lb5xx", lb_proxy_errors AS "lbProxyErrors",
           lb_latency_hist::text AS "lbLatencyHist",
           ${PHASE_COLUMNS.map(([field, column]) => `${column}::text AS "${field}"`).join(', ')}
         FROM queue_broker.endpoint_metric_rollups
         WHERE endpoint_id = $1 AND step_s = $2 AND bucket_start >= $3
           AND ($4::float8 IS NULL OR updated_at >= to_timestamp($4::float8 / 1000))
       ) r ON true
       ORDER BY r."bucketStart"`,
      [endpointId, stepS, from, changedSince],
    );
    return {
      readAt: rows[0].readAt,
      rows: rows
        .filter((row) => row.bucketStart !== null)
        .map(({ readAt: _clock, ...row }) => ({
          ...row,
          bucketStart: new Date(row.bucketStart),
          delayHist: intArray(row.delayHist),
          execHist: intArray(row.execHist),
          coldHist: intArray(row.coldHist),
          lbLatencyHist: intArray(row.lbLatencyHist),
          ...phaseHistograms(row),
        })),
    };
  }

  async cursor(name: string): Promise<number> {
    const rows = await this.dataSource.query<{ seq: string }[]>(
      `SELECT stream_seq AS seq FROM queue_broker.metrics_cursors WHERE name = $1`,
      [name],
    );
    return rows.length ? Number(rows[0].seq) : 0;
  }

  /**
   * Moves the cursor from `from` to `to`, only if it is still at `from` (a replica that lost the leadership while
   * folding cannot count a batch its successor counts too); false when it was not.
   */
  async advanceCursor(name: string, from: number, to: number, manager: EntityManager): Promise<boolean> {
    const moved = await manager.query<unknown[]>(
      `INSERT INTO queue_broker.metrics_cursors AS c (name, stream_seq, updated_at) VALUES ($1, $3, now())
       ON CONFLICT (name) DO UPDATE SET stream_seq = EXCLUDED.stream_seq, updated_at = EXCLUDED.updated_at
       WHERE c.stream_seq = $2 RETURNING name`,
      [name, from, to],
    );
    return moved.length === 1;
  }

  /**
   * Every endpoint with queued jobs or live workers: queue depth and oldest queued job (the queue's partial index),
   * workers by status as /health counts them (alive since `lostBefore`, or registered since `initSince`).
   */
  sampleGauges(now: Date, lostBefore: Date, initSince: Date): Promise<GaugeSample[]> {
    return this.dataSource.query(
      `WITH q AS (
         SELECT endpoint_id, COUNT(*)::int AS depth, MIN(queued_at) AS oldest
         FROM queue_broker.jobs WHERE status = 'IN_QUEUE' GROUP BY endpoint_id),
       w AS (
         SELECT endpoint_id,
           COUNT(*) FILTER (WHERE unhealthy)::int AS unhealthy,
           COUNT(*) FILTER (WHERE NOT unhealthy AND leased > 0)::int AS running,
           COUNT(*) FILTER (WHERE NOT unhealthy AND leased = 0 AND first_poll_at IS NOT NULL)::int AS idle,
           COUNT(*) FILTER (WHERE NOT unhealthy AND leased = 0 AND first_poll_at IS NULL)::int AS initializing
         FROM (SELECT x.endpoint_id, x.unhealthy, x.first_poll_at,
                 (SELECT COUNT(*) FROM queue_broker.jobs j WHERE j.lease_worker_id = x.id) AS leased
               FROM queue_broker.workers x
               WHERE x.lost_at IS NULL AND ((x.last_seen_at IS NOT NULL AND x.last_seen_at >= $2)
                 OR (x.last_seen_at IS NULL AND x.registered_at >= $3))) alive
         GROUP BY endpoint_id)
       SELECT COALESCE(q.endpoint_id, w.endpoint_id) AS "endpointId", COALESCE(q.depth, 0) AS "queueDepth",
         COALESCE(ROUND(GREATEST(0, EXTRACT(EPOCH FROM ($1::timestamptz - q.oldest)) * 1000)), 0)::float8 AS "oldestAgeMs",
         COALESCE(w.running, 0) AS "workersRunning", COALESCE(w.idle, 0) AS "workersIdle",
         COALESCE(w.initializing, 0) AS "workersInitializing", 0 AS "workersThrottled",
         COALESCE(w.unhealthy, 0) AS "workersUnhealthy"
       FROM q FULL JOIN w ON w.endpoint_id = q.endpoint_id`,
      [now, lostBefore, initSince],
    );
  }

  /** Rows older than their resolution's retention, and counted cold starts older than `coldBefore`. */
  async prune(before: { stepS: number; before: Date }[], coldBefore: Date): Promise<void> {
    for (const { stepS, before: cutoff } of before) {
      await this.dataSource.query(
        `DELETE FROM queue_broker.endpoint_metric_rollups WHERE step_s = $1 AND bucket_start < $2`,
        [stepS, cutoff],
      );
    }
    await this.dataSource.query(`DELETE FROM queue_broker.metrics_cold_starts WHERE first_poll_at < $1`, [
      coldBefore,
    ]);
  }
}
