import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { HostEntity } from '../catalog/host.entity.js';

/** Capacity held by one pod on one host (a cluster member or a standalone pod), until it exits or terminates. */
@Entity({ name: 'reservations' })
@Index('reservations_owner_type_idx', ['ownerId', 'gpuTypeId'])
export class ReservationEntity {
  @PrimaryColumn({ name: 'pod_id', type: 'text' })
  podId: string;

  @Column({ name: 'owner_id', type: 'text' })
  ownerId: string;

  @Index('reservations_cluster_idx')
  @Column({ name: 'cluster_id', type: 'text', nullable: true })
  clusterId: string | null;

  @Index('reservations_host_idx')
  @ForeignKey(() => HostEntity)
  @Column({ name: 'host_id', type: 'text' })
  hostId: string;

  @Column({ name: 'data_center_id', type: 'text' })
  dataCenterId: string;

  @Column({ name: 'gpu_type_id', type: 'text', nullable: true })
  gpuTypeId: string | null;

  @Column({ name: 'gpu_count', type: 'integer' })
  gpuCount: number;

  @Column({ name: 'cpu_slots', type: 'integer' })
  cpuSlots: number;

  @Index('reservations_volume_idx')
  @Column({ name: 'network_volume_id', type: 'text', nullable: true })
  networkVolumeId: string | null;

  /** `22/tcp` → public port on the host. */
  @Column({ name: 'port_mappings', type: 'jsonb' })
  portMappings: Record<string, number>;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  /** The workload's priority: 0 low, 1 normal, 2 high (priorityRank). */
  @Column({ type: 'smallint', default: 1 })
  priority: number;

  /** Preemptible at any priority (an interruptible pod). */
  @Column({ type: 'boolean', default: false })
  interruptible: boolean;
}
