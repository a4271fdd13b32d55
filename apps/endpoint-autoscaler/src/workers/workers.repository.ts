import { Injectable } from '@nestjs/common';
import { DataSource, In, Not, type EntityManager } from 'typeorm';
import { WorkerEntity } from './worker.entity.js';

@Injectable()
export class WorkersRepository {
  constructor(private readonly dataSource: DataSource) {}

  listByEndpoint(endpointId: string): Promise<WorkerEntity[]> {
    return this.dataSource.manager.find(WorkerEntity, {
      where: { endpointId },
      order: { createdAt: 'ASC', podId: 'ASC' },
    });
  }

  /** Every worker row, of every endpoint (the control loop's snapshot: one read per tick). */
  listAll(): Promise<WorkerEntity[]> {
    return this.dataSource.manager.find(WorkerEntity, { order: { createdAt: 'ASC', podId: 'ASC' } });
  }

  /** The workers users see (not yet being terminated), grouped by endpoint. */
  async visibleByEndpoints(endpointIds: string[]): Promise<Map<string, WorkerEntity[]>> {
    const byEndpoint = new Map<string, WorkerEntity[]>(endpointIds.map((id) => [id, []]));
    if (!endpointIds.length) return byEndpoint;
    const rows = await this.dataSource.manager.find(WorkerEntity, {
      where: { endpointId: In(endpointIds), desired: Not('TERMINATED') },
      order: { createdAt: 'ASC', podId: 'ASC' },
    });
    for (const row of rows) byEndpoint.get(row.endpointId)?.push(row);
    return byEndpoint;
  }

  async insert(workers: WorkerEntity[], manager: EntityManager): Promise<void> {
    if (workers.length) await manager.insert(WorkerEntity, workers);
  }

  async save(workers: WorkerEntity[], manager: EntityManager): Promise<void> {
    if (workers.length) await manager.save(WorkerEntity, workers);
  }

  async delete(podIds: string[], manager: EntityManager): Promise<void> {
    if (podIds.length) await manager.delete(WorkerEntity, { podId: In(podIds) });
  }
}
