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
   * The latest refusals since `since`, from the `failed` events the applier records with the refused command and
   * its error code in `inputs`: the back-offs are derived from these rows, so a restarted or new leader keeps
   * them (the (endpoint_id, at) index keeps this to the last few seconds of one endpoint).
   */
  async recentRefusals(endpointId: string, since: Date): Promise<RecentRefusals> {
    const row = await this.dataSource.manager
      .createQueryBuilder(ScalingEventEntity, 'e')
      .select(`max(e.at) FILTER (WHERE e.inputs->>'refusedCommand' = 'create')`, 'createRefusedAt')
      .addSelect(`max(e.at) FILTER (WHERE e.inputs->>'errorCode' = :spend)`, 'spendLimitRefusedAt')
      .where(`e.endpoint_id = :endpointId AND e.action = 'failed' AND e.at > :since`, { endpointId, since })
      .setParameter('spend', ErrorCode.SpendLimitReached)
      .getRawOne<{ createRefusedAt: Date | null; spendLimitRefusedAt: Date | null }>();
    return {
      createRefusedAt: row?.createRefusedAt ?? null,
      spendLimitRefusedAt: row?.spendLimitRefusedAt ?? null,
    };
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
