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
}
