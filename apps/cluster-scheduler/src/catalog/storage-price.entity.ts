import { Column, Entity, PrimaryColumn } from 'typeorm';
import { NUMERIC_AS_NUMBER } from '@app/database';

export type StorageKind = 'containerDisk' | 'networkVolume';

/** A storage price per GB-hour, from the fleet file's `prices` (or its default). */
@Entity({ name: 'storage_prices' })
export class StoragePriceEntity {
  @PrimaryColumn({ type: 'text' })
  kind: StorageKind;

  @Column({ name: 'per_gb_hr', type: 'numeric', precision: 14, scale: 8, transformer: NUMERIC_AS_NUMBER })
  perGbHr: number;
}
