import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** A network volume: storage in one data center, mountable by the pods and clusters placed there. */
@Entity({ name: 'network_volumes' })
@Index('network_volumes_owner_idx', ['ownerId', 'createdAt'])
export class NetworkVolumeEntity {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ name: 'owner_id', type: 'text' })
  ownerId: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ name: 'size_gb', type: 'integer' })
  sizeGb: number;

  @Column({ name: 'data_center_id', type: 'text' })
  dataCenterId: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
