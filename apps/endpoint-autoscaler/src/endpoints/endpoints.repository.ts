import { Injectable } from '@nestjs/common';
import { DataSource, IsNull, type EntityManager } from 'typeorm';
import { EndpointEntity } from './endpoint.entity.js';

@Injectable()
export class EndpointsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** A live (not deleted) endpoint. */
  findLive(id: string, manager: EntityManager = this.dataSource.manager): Promise<EndpointEntity | null> {
    return manager.findOneBy(EndpointEntity, { id, deletedAt: IsNull() });
  }

  /** Reads a live endpoint and locks its row for a modify or a delete. */
  lockLive(id: string, manager: EntityManager): Promise<EndpointEntity | null> {
    return manager.findOne(EndpointEntity, {
      where: { id, deletedAt: IsNull() },
      lock: { mode: 'pessimistic_write' },
    });
  }

  listByOwner(ownerId: string): Promise<EndpointEntity[]> {
    return this.dataSource.manager.find(EndpointEntity, {
      where: { ownerId, deletedAt: IsNull() },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
  }

  /** Every endpoint the control loop looks after: the live ones and the deleted ones whose workers remain. */
  listAll(): Promise<EndpointEntity[]> {
    return this.dataSource.manager.find(EndpointEntity, { order: { createdAt: 'ASC', id: 'ASC' } });
  }

  insert(entity: EndpointEntity, manager: EntityManager): Promise<unknown> {
    return manager.insert(EndpointEntity, entity);
  }

  save(entity: EndpointEntity, manager: EntityManager): Promise<unknown> {
    return manager.save(EndpointEntity, entity);
  }

  /** Removes a deleted endpoint's row once its workers are gone. */
  /** The endpoint's row, deleted or not, locked for the transaction. */
  lockAny(id: string, manager: EntityManager): Promise<EndpointEntity | null> {
    return manager.findOne(EndpointEntity, { where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  async purgeDeleted(id: string, manager: EntityManager): Promise<void> {
    await manager
      .createQueryBuilder()
      .delete()
      .from(EndpointEntity)
      .where('id = :id AND deleted_at IS NOT NULL', { id })
      .execute();
  }
}
