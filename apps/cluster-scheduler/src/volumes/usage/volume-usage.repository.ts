import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { table } from '../../schema.js';
import type { NetworkVolumeEntity } from '../network-volume.entity.js';
import type { VolumeUsageEntity } from './volume-usage.entity.js';

/** One interval of a volume's accrual, as the usage read returns it. */
export type VolumeUsageRow = Pick<
  VolumeUsageEntity,
  'volumeId' | 'sizeGb' | 'ownerId' | 'startedAt' | 'endedAt' | 'ratePerHr'
>;

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

  /**
   * The owner's intervals that overlap `[from, to)`, in start order, as plain rows (`/v2/billing` asks on every
   * call: the query builder and entity hydration cost more than the read).
   */
  async overlapping(ownerId: string, from: Date, to: Date): Promise<VolumeUsageRow[]> {
    const rows: {
      volume_id: string;
      size_gb: number;
      owner_id: string;
      started_at: Date;
      ended_at: Date | null;
      rate_per_hr: number;
    }[] = await this.dataSource.query(
      `SELECT volume_id, size_gb, owner_id, started_at, ended_at, rate_per_hr::float8 AS rate_per_hr
         FROM ${table('volume_usage')}
        WHERE owner_id = $1 AND started_at < $3 AND (ended_at IS NULL OR ended_at > $2)
        ORDER BY started_at, volume_id`,
      [ownerId, from, to],
    );
    return rows.map((r) => ({
      volumeId: r.volume_id,
      sizeGb: r.size_gb,
      ownerId: r.owner_id,
      startedAt: r.started_at,
      endedAt: r.ended_at,
      ratePerHr: r.rate_per_hr,
    }));
  }
}
