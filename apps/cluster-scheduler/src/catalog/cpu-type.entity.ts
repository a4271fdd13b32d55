import { Column, Entity, PrimaryColumn } from 'typeorm';
import { PricePerHrColumn } from './price-column.js';

/** A CPU type of the catalog, loaded from the fleet file. */
@Entity({ name: 'cpu_types' })
export class CpuTypeEntity {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ name: 'display_name', type: 'text' })
  displayName: string;

  @Column({ type: 'integer' })
  cores: number;

  @Column({ name: 'threads_per_core', type: 'integer' })
  threadsPerCore: number;

  /** Price per CPU pod per hour, from the fleet file (or its default). */
  @PricePerHrColumn()
  pricePerHr: number;
}
