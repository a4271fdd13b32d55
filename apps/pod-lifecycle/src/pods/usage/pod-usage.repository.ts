import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { PodUsageReader } from '../../spend/pod-usage.reader.js';
import { PodUsageEntity, type PodUsageKind } from './pod-usage.entity.js';

/** pod_usage: one insert or update per interval opened or closed; reads are one indexed range per owner. */
@Injectable()
export class PodUsageRepository implements PodUsageReader {
  constructor(private readonly dataSource: DataSource) {}

  /** Opens an interval at `row.startedAt` (one closed at the same instant is reopened rather than duplicated). */
  async open(row: Omit<PodUsageEntity, 'endedAt'>, manager: EntityManager): Promise<void> {
    await manager
      .createQueryBuilder()
      .insert()
      .into(PodUsageEntity)
      .values({ ...row, endedAt: null })
      .orUpdate(['ended_at', 'rate_per_hr', 'units'], ['pod_id', 'kind', 'started_at'])
      .execute();
  }

  /** Closes the pod's open interval of `kind` at `at` (never before it started). */
  async close(podId: string, kind: PodUsageKind, at: Date, manager: EntityManager): Promise<void> {
    await manager
      .createQueryBuilder()
      .update(PodUsageEntity)
      .set({ endedAt: () => 'GREATEST(started_at, :at)' })
      .where('pod_id = :podId AND kind = :kind AND ended_at IS NULL', { podId, kind, at })
      .execute();
  }

  /** The owner's intervals that overlap `[from, to)`, in start order. */
  overlapping(ownerId: string, from: Date, to: Date): Promise<PodUsageEntity[]> {
    return this.dataSource.manager
      .createQueryBuilder(PodUsageEntity, 'u')
      .where('u.owner_id = :ownerId AND u.started_at < :to', { ownerId, to })
      .andWhere('(u.ended_at IS NULL OR u.ended_at > :from)', { from })
      .orderBy('u.started_at')
      .addOrderBy('u.pod_id')
      .addOrderBy('u.kind')
      .getMany();
  }
}
