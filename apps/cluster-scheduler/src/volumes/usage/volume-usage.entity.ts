import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { UsageIntervalColumns } from '@app/database';

/**
 * One interval of a network volume's accrual at one size (ADR 21): opened by its create or a resize, closed by
 * the next resize or its delete, at the command's time, with the GB-hour price of that moment (× size).
 */
@Entity({ name: 'volume_usage' })
@Index('volume_usage_owner_idx', ['ownerId', 'startedAt'])
export class VolumeUsageEntity extends UsageIntervalColumns {
  @PrimaryColumn({ name: 'volume_id', type: 'text' })
  volumeId: string;

  @Column({ name: 'size_gb', type: 'integer' })
  sizeGb: number;
}
