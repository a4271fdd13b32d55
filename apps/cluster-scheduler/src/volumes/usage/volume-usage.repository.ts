import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { table } from '../../schema.js';
import type { NetworkVolumeEntity } from '../network-volume.entity.js';
import { VolumeUsageEntity } from './volume-usage.entity.js';

/** volume_usage: one statement per interval opened or closed; reads are one indexed range per owner. */
@Injectable()
export class VolumeUsageRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Starts accruing the volume at its current size and the current GB-hour price, at `at`. */
  async open(volume: NetworkVolumeEntity, at: Date, manager: EntityManager): Promise<void> {
    await manager.query(
      `INSERT INTO ${table('volume_usage')} (volume_id, started_at, ended_at, owner_id, size_gb, rate_per_hr)
       SELECT $1::text, $2::timestamptz, NULL, $3::text, $4::int,
              $4::int * coalesce((SELECT per_gb_hr FROM ${table('storage_prices')} WHERE kind = 'networkVolume'), 0)
       ON CONFLICT (volume_id, started_at) DO UPDATE
         SET ended_at = NULL, size_gb = EXCLUDED.size_gb, rate_per_hr = EXCLUDED.rate_per_hr`,
      [volume.id, at, volume.ownerId, volume.sizeGb],
    );
  }

  /** Ends the volume's open interval at `at` (never before it started). */
  async close(volumeId: string, at: Date, manager: EntityManager): Promise<void> {
    await manager.query(
      `UPDATE ${table('volume_usage')} SET ended_at = GREATEST(started_at, $2::timestamptz)
        WHERE volume_id = $1 AND ended_at IS NULL`,
      [volumeId, at],
    );
  }

  /** The owner's intervals that overlap `[from, to)`, in start order. */
  overlapping(ownerId: string, from: Date, to: Date): Promise<VolumeUsageEntity[]> {
    return this.dataSource.manager
      .createQueryBuilder(VolumeUsageEntity, 'u')
      .where('u.owner_id = :ownerId AND u.started_at < :to', { ownerId, to })
      .andWhere('(u.ended_at IS NULL OR u.ended_at > :from)', { from })
      .orderBy('u.started_at')
      .addOrderBy('u.volume_id')
      .getMany();
  }
}
