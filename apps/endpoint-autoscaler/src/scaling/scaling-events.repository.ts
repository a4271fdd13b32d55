import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ScalingEventEntity } from './scaling-event.entity.js';

@Injectable()
export class ScalingEventsRepository {
  constructor(private readonly dataSource: DataSource) {}

  insert(event: ScalingEventEntity): Promise<unknown> {
    return this.dataSource.manager.insert(ScalingEventEntity, event);
  }

  listByEndpoint(endpointId: string, limit = 100): Promise<ScalingEventEntity[]> {
    return this.dataSource.manager.find(ScalingEventEntity, {
      where: { endpointId },
      order: { at: 'DESC', id: 'DESC' },
      take: limit,
    });
  }
}
