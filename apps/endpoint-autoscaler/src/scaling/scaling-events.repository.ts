import { Injectable } from '@nestjs/common';
import { ErrorCode } from '@app/contracts';
import { DataSource, type EntityManager } from 'typeorm';
import { ScalingEventEntity } from './scaling-event.entity.js';
import type { RecentRefusals } from './scaling-plan.js';

@Injectable()
export class ScalingEventsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(events: ScalingEventEntity[], manager: EntityManager): Promise<void> {
    if (events.length) await manager.insert(ScalingEventEntity, events);
  }

  listByEndpoint(endpointId: string, limit = 100): Promise<ScalingEventEntity[]> {
    return this.dataSource.manager.find(ScalingEventEntity, {
      where: { endpointId },
      order: { at: 'DESC', id: 'DESC' },
      take: limit,
    });
  }

  /**
   * Each endpoint's latest refusals since `since` (one without any is absent), from the `failed` events the
   * applier records with the refused command and its error code in `inputs`: the back-offs are derived from these
   * rows, so a restarted or new leader keeps them. One statement for every endpoint of the tick; the (endpoint_id,
   * at) index keeps it to the last few seconds of each.
   */
  async recentRefusals(endpointIds: string[], since: Date): Promise<Map<string, RecentRefusals>> {
    if (!endpointIds.length) return new Map();
    const rows = await this.dataSource.query<
      { endpointId: string; createRefusedAt: Date | null; spendLimitRefusedAt: Date | null }[]
    >(
      `SELECT e.endpoint_id AS "endpointId",
         max(e.at) FILTER (WHERE e.inputs->>'refusedCommand' = 'create') AS "createRefusedAt",
         max(e.at) FILTER (WHERE e.inputs->>'errorCode' = $3) AS "spendLimitRefusedAt"
       FROM endpoint_autoscaler.scaling_events e
       WHERE e.endpoint_id = ANY($1) AND e.action = 'failed' AND e.at > $2
       GROUP BY e.endpoint_id`,
      [endpointIds, since, ErrorCode.SpendLimitReached],
    );
    return new Map(rows.map(({ endpointId, ...refusals }) => [endpointId, refusals]));
  }

  /**
   * The endpoint's latest refused create or resume in (`since`, `before`), unless a create or resume was decided
   * after it (before `before`): then its workers are no longer held back by it. Both reads walk the
   * (endpoint_id, at) index over that window only.
   */
  async latestUnansweredRefusal(
    endpointId: string,
    since: Date,
    before: Date,
  ): Promise<LatestRefusal | null> {
    const rows = await this.dataSource.query<LatestRefusal[]>(
      `SELECT f.at, f.reason, f.inputs->>'errorCode' AS code, f.inputs->>'waitingSince' AS "waitingSince"
       FROM endpoint_autoscaler.scaling_events f
       WHERE f.endpoint_id = $1 AND f.action = 'failed' AND f.at > $2 AND f.at < $3
         AND f.inputs->>'refusedCommand' IN ('create', 'start')
         AND NOT EXISTS (SELECT 1 FROM endpoint_autoscaler.scaling_events a
                         WHERE a.endpoint_id = $1 AND a.action IN ('create', 'resume')
                           AND a.at > f.at AND a.at < $3)
       ORDER BY f.at DESC, f.id DESC
       LIMIT 1`,
      [endpointId, since, before],
    );
    return rows[0] ?? null;
  }
}

/** A failed scaling event of a refused create or resume, as latestUnansweredRefusal reads it. */
export interface LatestRefusal {
  at: Date;
  reason: string;
  code: string | null;
  /** The refusal's record of when its endpoint began waiting (older records have none). */
  waitingSince: string | null;
}
