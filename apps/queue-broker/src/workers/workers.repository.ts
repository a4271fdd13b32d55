import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { numberedFrom, writeBehind, type StatementPart } from '@app/database';
import type { LostWorker, WorkerRoster, WorkerStates } from '../jobs/worker-roster.js';
import { WorkerEntity } from './worker.entity.js';

/**
 * Records a call of the worker made at $3 (any call proves it alive; $4 `poll`: it asked for a job, so it has
 * finished starting and is healthy). A call older than the worker's `lost_at` (a long poll the edge kept asking
 * for) does not bring a lost worker back.
 */
const TOUCH = `
  INSERT INTO queue_broker.workers
    (id, endpoint_id, registered_at, last_seen_at, first_poll_at, unhealthy, lost_at, recycle_requested)
  VALUES ($1, $2, $3, $3, CASE WHEN $4 THEN $3::timestamptz END, false, NULL, $5)
  ON CONFLICT (id) DO UPDATE SET
    endpoint_id = EXCLUDED.endpoint_id,
    last_seen_at = GREATEST(COALESCE(workers.last_seen_at, EXCLUDED.last_seen_at), EXCLUDED.last_seen_at),
    first_poll_at = COALESCE(workers.first_poll_at, EXCLUDED.first_poll_at),
    unhealthy = CASE WHEN $4 THEN false ELSE workers.unhealthy END,
    unhealthy_reason = CASE WHEN $4 THEN NULL ELSE workers.unhealthy_reason END,
    recycle_requested = workers.recycle_requested OR $5,
    lost_at = CASE WHEN workers.lost_at >= EXCLUDED.last_seen_at THEN workers.lost_at END`;

/** TOUCH's parameters. */
function touchValues(
  endpointId: string,
  workerId: string,
  heardAt: Date,
  options: { poll?: boolean; recycle?: boolean },
): unknown[] {
  return [workerId, endpointId, heardAt, options.poll ?? false, options.recycle ?? false];
}

const TOUCH_POLLING = `${TOUCH}
  RETURNING (workers.lost_at IS NULL AND workers.last_seen_at >= $6) AS alive`;

/**
 * A worker of endpoint $1 still counted: not lost, seen since $2, or registered since $3 and not yet calling. The
 * one definition behind /health's counts and the workers list, so both always agree.
 */
const ALIVE = `w.endpoint_id = $1 AND w.lost_at IS NULL
  AND ((w.last_seen_at IS NOT NULL AND w.last_seen_at >= $2) OR (w.last_seen_at IS NULL AND w.registered_at >= $3))`;

/** ALIVE, for the endpoints of the ids in `$1`. */
const ALIVE_ANY = ALIVE.replace('w.endpoint_id = $1', 'w.endpoint_id = ANY($1)');

/** The jobs worker `w` holds. */
const LEASED = '(SELECT COUNT(*) FROM queue_broker.jobs j WHERE j.lease_worker_id = w.id)';

@Injectable()
export class WorkersRepository implements WorkerRoster {
  constructor(private readonly dataSource: DataSource) {}

  findById(id: string, manager: EntityManager = this.dataSource.manager): Promise<WorkerEntity | null> {
    return manager.findOneBy(WorkerEntity, { id });
  }

  /**
   * Records a call of the worker made at `heardAt` (any call proves it alive; `poll`: it asked for a job, so it has
   * finished starting and is healthy). A call older than the worker's `lost_at` (a long poll the edge kept asking
   * for) does not bring a lost worker back.
   */
  async touch(
    endpointId: string,
    workerId: string,
    heardAt: Date,
    manager: EntityManager,
    options: { poll?: boolean; recycle?: boolean } = {},
  ): Promise<void> {
    // Nothing waits for it: sent ahead of the command's next statement (writeBehind).
    await writeBehind(manager, 'workers.touch', TOUCH, touchValues(endpointId, workerId, heardAt, options));
  }

  /**
   * `touch` as a part of another statement (one round trip for both): the job-done lock's. Gated, so the worker's row
   * is locked before the jobs are, as a take and the sweep's lost workers lock them (worker, then its jobs): a
   * done that locked its job first could deadlock with a sweep marking its worker lost.
   */
  touchPart(
    endpointId: string,
    workerId: string,
    heardAt: Date,
    options: { poll?: boolean; recycle?: boolean } = {},
  ): StatementPart {
    return {
      name: 'workers.touch-first',
      sql: (first) => `touched AS (${numberedFrom(TOUCH, first)} RETURNING true AS heard)`,
      values: touchValues(endpointId, workerId, heardAt, options),
      gate: '(SELECT heard FROM touched)',
    };
  }

  /**
   * `touch` of a worker asking for jobs, answering whether it is alive afterwards: not marked lost, and a heartbeat
   * since `lostBefore` (a long poll's call can be older than that: the edge kept asking for it). A part of the take's
   * leasing statement (job-leases.repository.ts), which leases nothing unless `alive`.
   */
  pollingTouch(endpointId: string, workerId: string, heardAt: Date, lostBefore: Date): StatementPart {
    return {
      name: 'workers.touch-polling',
      sql: (first) => numberedFrom(TOUCH_POLLING, first),
      values: [workerId, endpointId, heardAt, true, false, lostBefore],
    };
  }

  /** The autoscaler started a worker pod: it counts as initializing until it calls. */
  async register(
    endpointId: string,
    workerId: string,
    ownerId: string,
    now: Date,
    manager: EntityManager,
  ): Promise<void> {
    await manager.query(
      `INSERT INTO queue_broker.workers (id, endpoint_id, registered_at, unhealthy, recycle_requested, owner_id)
       VALUES ($1, $2, $3, false, false, $4)
       ON CONFLICT (id) DO UPDATE SET endpoint_id = EXCLUDED.endpoint_id, owner_id = EXCLUDED.owner_id`,
      [workerId, endpointId, now, ownerId],
    );
  }

  async markHealth(
    workerId: string,
    unhealthy: boolean,
    reason: string | null,
    version: string | null,
    manager: EntityManager,
  ): Promise<void> {
    const changes = unhealthy
      ? { unhealthy: true, unhealthyReason: reason, ...(version ? { version } : {}) }
      : { ...(version ? { version } : {}) };
    // A healthy ping without a version changes nothing (and TypeORM refuses an empty update).
    if (Object.keys(changes).length === 0) return;
    await manager.update(WorkerEntity, { id: workerId }, changes);
  }

  /** Workers silent since before `lostBefore` that are not marked lost yet, marked now; returns their ids. */
  async markLost(lostBefore: Date, now: Date, manager: EntityManager): Promise<LostWorker[]> {
    const rows = await manager.query<
      [{ id: string; endpoint_id: string; owner_id: string | null }[], number]
    >(
      `UPDATE queue_broker.workers w SET lost_at = $2
       WHERE w.lost_at IS NULL AND COALESCE(w.last_seen_at, w.registered_at) < $1
         AND (w.last_seen_at IS NOT NULL OR EXISTS
           (SELECT 1 FROM queue_broker.jobs j WHERE j.lease_worker_id = w.id))
       RETURNING w.id, w.endpoint_id, w.owner_id`,
      [lostBefore, now],
    );
    // RETURNING has no order of its own: by id, so the sweep's entries (and a replay's) come in one order.
    return rows[0]
      .map((r) => ({ id: r.id, endpointId: r.endpoint_id, ownerId: r.owner_id }))
      .sort((a, b) => (a.id < b.id ? -1 : 1));
  }

  /**
   * The workers of these ids not lost yet, marked lost at `now`; who they were. Locked in id order first, as a sweep
   * marking silent workers lost beside it (another lane) may lock some of them too.
   */
  async markGone(workerIds: string[], now: Date, manager: EntityManager): Promise<LostWorker[]> {
    if (!workerIds.length) return [];
    const rows = await manager.query<
      [{ id: string; endpoint_id: string; owner_id: string | null }[], number]
    >(
      `UPDATE queue_broker.workers w SET lost_at = $2
       WHERE w.id IN (SELECT id FROM queue_broker.workers
                      WHERE id = ANY($1) AND lost_at IS NULL ORDER BY id FOR UPDATE)
       RETURNING w.id, w.endpoint_id, w.owner_id`,
      [workerIds, now],
    );
    return rows[0]
      .map((r) => ({ id: r.id, endpointId: r.endpoint_id, ownerId: r.owner_id }))
      .sort((a, b) => (a.id < b.id ? -1 : 1));
  }

  deleteLostBefore(before: Date, manager: EntityManager): Promise<unknown> {
    return manager.query(`DELETE FROM queue_broker.workers WHERE lost_at < $1`, [before]);
  }

  /** Workers of the endpoint by state, among those alive (seen since `lostBefore`, or registered since `initSince`). */
  async counts(endpointIds: string[], lostBefore: Date, initSince: Date): Promise<Map<string, WorkerStates>> {
    const rows = await this.dataSource.query<(WorkerStates & { endpointId: string })[]>(
      `SELECT endpoint_id AS "endpointId",
         COUNT(*) FILTER (WHERE unhealthy)::int AS unhealthy,
         COUNT(*) FILTER (WHERE NOT unhealthy AND leased > 0)::int AS running,
         COUNT(*) FILTER (WHERE NOT unhealthy AND leased = 0 AND first_poll_at IS NOT NULL)::int AS idle,
         COUNT(*) FILTER (WHERE initializing)::int AS initializing,
         COALESCE(array_agg(id ORDER BY id) FILTER (WHERE recycle_requested), '{}') AS recycle,
         COALESCE(array_agg(id ORDER BY id) FILTER (WHERE initializing), '{}') AS "initializingIds",
         COALESCE(array_agg(id ORDER BY id) FILTER (WHERE NOT unhealthy AND leased > 0), '{}') AS "busyIds"
       FROM (SELECT x.*, NOT x.unhealthy AND x.leased = 0 AND x.first_poll_at IS NULL AS initializing
             FROM (SELECT w.*, ${LEASED} AS leased FROM queue_broker.workers w WHERE ${ALIVE_ANY}) x) y
       GROUP BY endpoint_id`,
      [endpointIds, lostBefore, initSince],
    );
    return new Map(rows.map(({ endpointId, ...states }) => [endpointId, states]));
  }

  /**
   * The endpoint's live workers (as `counts` sees them) with the jobs each holds (how many, and the first `maxIds`
   * ids by lease time), oldest first: one statement, the jobs found through their lease index.
   */
  listAlive(
    endpointId: string,
    lostBefore: Date,
    initSince: Date,
    maxIds: number,
  ): Promise<(WorkerEntity & { leased: number; jobIds: string[] })[]> {
    return this.dataSource.query(
      `SELECT w.id, w.endpoint_id AS "endpointId", w.registered_at AS "registeredAt",
         w.last_seen_at AS "lastSeenAt", w.first_poll_at AS "firstPollAt", w.unhealthy,
         w.unhealthy_reason AS "unhealthyReason", w.lost_at AS "lostAt",
         w.recycle_requested AS "recycleRequested", w.version,
         l.leased, COALESCE(l.ids[1:$4], '{}') AS "jobIds"
       FROM queue_broker.workers w
       CROSS JOIN LATERAL (
         SELECT COUNT(*)::int AS leased, array_agg(j.id ORDER BY j.leased_at, j.id) AS ids
         FROM queue_broker.jobs j WHERE j.lease_worker_id = w.id) l
       WHERE ${ALIVE}
       ORDER BY w.registered_at, w.id`,
      [endpointId, lostBefore, initSince, maxIds],
    );
  }
}
