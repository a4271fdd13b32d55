import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { WorkerStartTimes } from './cold-start-phases.js';

/** A worker's first job request not counted yet, with what was recorded of its start. */
export interface NewColdStart extends WorkerStartTimes {
  endpointId: string;
  registeredAt: Date;
}

/**
 * The phases' times of worker starts (worker-start.entity.ts), written by the register command and the pod status
 * events, in their transactions (each column keeps the earliest time it was given, so a redelivered or late event,
 * or a pod started again after a stop, changes nothing), and read by the metrics leader as it counts cold starts.
 */
@Injectable()
export class WorkerStartsRepository {
  /** The autoscaler's register: decided (if said) and placed. */
  async placed(
    workerId: string,
    endpointId: string,
    decidedAt: Date | null,
    placedAt: Date,
    manager: EntityManager,
  ): Promise<void> {
    await manager.query(
      `INSERT INTO queue_broker.worker_starts AS s (worker_id, endpoint_id, decided_at, placed_at, last_at)
       VALUES ($1, $2, $3::timestamptz, $4::timestamptz, GREATEST($3::timestamptz, $4::timestamptz))
       ON CONFLICT (worker_id) DO UPDATE SET
         decided_at = LEAST(s.decided_at, EXCLUDED.decided_at),
         placed_at = LEAST(s.placed_at, EXCLUDED.placed_at),
         last_at = GREATEST(s.last_at, EXCLUDED.last_at)`,
      [workerId, endpointId, decidedAt, placedAt],
    );
  }

  /** The worker's pod reached STARTING or RUNNING at `at`. */
  async reached(
    workerId: string,
    endpointId: string,
    status: 'starting' | 'running',
    at: Date,
    manager: EntityManager,
  ): Promise<void> {
    const column = status === 'starting' ? 'starting_at' : 'running_at';
    await manager.query(
      `INSERT INTO queue_broker.worker_starts AS s (worker_id, endpoint_id, ${column}, last_at)
       VALUES ($1, $2, $3::timestamptz, $3::timestamptz)
       ON CONFLICT (worker_id) DO UPDATE SET
         ${column} = LEAST(s.${column}, EXCLUDED.${column}),
         last_at = GREATEST(s.last_at, EXCLUDED.last_at)`,
      [workerId, endpointId, at],
    );
  }

  /**
   * Rows last written before `before` whose worker is gone (deleted by the sweep) or never called nor registered (a
   * load-balancing worker, a pod that never came up): their cold start, if any, was counted long ago.
   */
  async prune(before: Date, manager: EntityManager): Promise<void> {
    await manager.query(
      `DELETE FROM queue_broker.worker_starts s
       WHERE s.last_at < $1 AND NOT EXISTS (SELECT 1 FROM queue_broker.workers w WHERE w.id = s.worker_id)`,
      [before],
    );
  }

  /**
   * Workers whose first job request since `since` is not counted yet, marked counted (once each, whenever the
   * take that set it was applied), with their registration, first poll and the times of their start's phases.
   * A worker whose pod's start is on record but not yet its RUNNING (the pod's events are applied apart from the
   * worker's first take, and can come after it) waits until it is, or until its first poll is older than
   * `settledBefore`: counted earlier, its start would miss phases for good.
   */
  async newColdStarts(since: Date, settledBefore: Date, manager: EntityManager): Promise<NewColdStart[]> {
    const rows = await manager.query<Record<keyof NewColdStart, string | Date | null>[]>(
      `WITH counted AS (
         INSERT INTO queue_broker.metrics_cold_starts (worker_id, endpoint_id, first_poll_at)
         SELECT w.id, w.endpoint_id, w.first_poll_at FROM queue_broker.workers w
         LEFT JOIN queue_broker.worker_starts s ON s.worker_id = w.id
         WHERE w.first_poll_at >= $1
           AND (s.worker_id IS NULL OR s.running_at IS NOT NULL OR w.first_poll_at < $2)
         ON CONFLICT (worker_id) DO NOTHING
         RETURNING worker_id)
       SELECT w.endpoint_id AS "endpointId", w.registered_at AS "registeredAt", w.first_poll_at AS "firstPollAt",
         s.decided_at AS "decidedAt", s.placed_at AS "placedAt", s.starting_at AS "startingAt",
         s.running_at AS "runningAt"
       FROM queue_broker.workers w JOIN counted c ON c.worker_id = w.id
       LEFT JOIN queue_broker.worker_starts s ON s.worker_id = w.id`,
      [since, settledBefore],
    );
    const time = (value: string | Date | null) => (value === null ? null : new Date(value));
    return rows.map((row) => ({
      endpointId: String(row.endpointId),
      registeredAt: new Date(row.registeredAt!),
      firstPollAt: new Date(row.firstPollAt!),
      decidedAt: time(row.decidedAt),
      placedAt: time(row.placedAt),
      startingAt: time(row.startingAt),
      runningAt: time(row.runningAt),
    }));
  }
}
