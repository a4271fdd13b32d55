import { Column, PrimaryColumn } from 'typeorm';
import { NUMERIC_AS_NUMBER } from './numeric-column.js';

/**
 * What every usage interval has (ADR 21), whoever meters it: when it started (part of the key) and ended (null
 * while it runs), whose it is, and what it costs per hour. An owner's entity extends it with its resource.
 */
export abstract class UsageIntervalColumns {
  @PrimaryColumn({ name: 'started_at', type: 'timestamptz' })
  startedAt: Date;

  @Column({ name: 'ended_at', type: 'timestamptz', nullable: true })
  endedAt: Date | null;

  @Column({ name: 'owner_id', type: 'text' })
  ownerId: string;

  /** Cost per hour of the whole interval (already × its units). */
  @Column({ name: 'rate_per_hr', type: 'numeric', precision: 16, scale: 8, transformer: NUMERIC_AS_NUMBER })
  ratePerHr: number;
}
