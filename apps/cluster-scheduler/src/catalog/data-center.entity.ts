import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { RegionCode } from '@app/contracts';

/** A data center (`US-TX-3`, `EU-RO-1`, ...) with its region code. */
@Entity({ name: 'data_centers' })
export class DataCenterEntity {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text' })
  region: RegionCode;
}
