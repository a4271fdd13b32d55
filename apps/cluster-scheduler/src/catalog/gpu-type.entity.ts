import { Column, Entity, PrimaryColumn } from 'typeorm';
import { PricePerHrColumn } from './price-column.js';
import type { GpuTier } from '@app/contracts';

/** A GPU type of the catalog, loaded from the fleet file. */
@Entity({ name: 'gpu_types' })
export class GpuTypeEntity {
  /** The public id, e.g. `NVIDIA A100 80GB PCIe`. */
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ name: 'display_name', type: 'text' })
  displayName: string;

  @Column({ type: 'text' })
  manufacturer: string;

  @Column({ name: 'memory_in_gb', type: 'integer' })
  memoryInGb: number;

  /** Most GPUs of this type one pod may have. */
  @Column({ name: 'max_count', type: 'integer' })
  maxCount: number;

  /** The serverless tier it belongs to (AMPERE_80, ADA_24, ...). */
  @Column({ type: 'text' })
  tier: GpuTier;

  /** Price per GPU per hour, from the fleet file (or its default). */
  @PricePerHrColumn()
  pricePerHr: number;
}
