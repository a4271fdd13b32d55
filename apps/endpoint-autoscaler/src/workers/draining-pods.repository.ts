import { Injectable } from '@nestjs/common';
import { DataSource, In, type EntityManager } from 'typeorm';
import { DrainingPodEntity } from './draining-pod.entity.js';

@Injectable()
export class DrainingPodsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The host's rows, locked (a host's drains apply one at a time). */
  lockByHost(hostId: string, manager: EntityManager): Promise<DrainingPodEntity[]> {
    return manager.find(DrainingPodEntity, {
      where: { hostId },
      order: { podId: 'ASC' },
      lock: { mode: 'pessimistic_write' },
    });
  }

  /** Writes the rows (a pod of another host before is moved to this one). */
  async upsert(rows: DrainingPodEntity[], manager: EntityManager): Promise<void> {
    if (rows.length) await manager.upsert(DrainingPodEntity, rows, ['podId']);
  }

  async delete(podIds: string[], manager: EntityManager): Promise<void> {
    if (podIds.length) await manager.delete(DrainingPodEntity, { podId: In(podIds) });
  }

  /** Of the pods given, those on a draining host. */
  async draining(podIds: string[]): Promise<Set<string>> {
    if (!podIds.length) return new Set();
    const rows = await this.dataSource.manager.find(DrainingPodEntity, {
      where: { podId: In(podIds) },
      select: { podId: true },
    });
    return new Set(rows.map((row) => row.podId));
  }
}
