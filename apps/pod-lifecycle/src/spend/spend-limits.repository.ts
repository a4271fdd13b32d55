import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { SpendLimitEntity } from './spend-limit.entity.js';

/** spend_limits: one row per user who has a limit; a lookup by primary key on every new piece of GPU work. */
@Injectable()
export class SpendLimitsRepository {
  constructor(private readonly dataSource: DataSource) {}

  find(userId: string, manager: EntityManager = this.dataSource.manager): Promise<SpendLimitEntity | null> {
    return manager.findOneBy(SpendLimitEntity, { userId });
  }

  /** Reads the user's row and locks it until the transaction ends (two changes of one user's limits serialise). */
  lock(userId: string, manager: EntityManager): Promise<SpendLimitEntity | null> {
    return manager.findOne(SpendLimitEntity, { where: { userId }, lock: { mode: 'pessimistic_write' } });
  }

  async save(row: SpendLimitEntity, manager: EntityManager): Promise<void> {
    await manager.upsert(SpendLimitEntity, row, ['userId']);
  }

  async delete(userId: string, manager: EntityManager): Promise<void> {
    await manager.delete(SpendLimitEntity, { userId });
  }
}
