import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { HostStartFailuresEntity, type StartFailure } from './host-start-failures.entity.js';

/** The hosts' start-failure streaks (host-start-failures.entity.ts). */
@Injectable()
export class HostStartFailuresRepository {
  /**
   * The host's streak, its row locked until the transaction ends (two pods of one host observed at once by two
   * replicas count one after the other); empty when there is none. The advisory lock covers a host without a row.
   */
  async lock(hostId: string, manager: EntityManager): Promise<StartFailure[]> {
    await manager.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
      `start-failures:${hostId}`,
    ]);
    const row = await manager.findOneBy(HostStartFailuresEntity, { hostId });
    return row?.failures ?? [];
  }

  async save(hostId: string, failures: StartFailure[], at: Date, manager: EntityManager): Promise<void> {
    await manager.upsert(HostStartFailuresEntity, { hostId, failures, updatedAt: at }, ['hostId']);
  }

  async clear(hostId: string, manager: EntityManager): Promise<void> {
    await manager.delete(HostStartFailuresEntity, { hostId });
  }
}
