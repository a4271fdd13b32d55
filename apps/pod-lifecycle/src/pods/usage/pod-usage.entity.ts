import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { UsageIntervalColumns } from '@app/database';

export type PodUsageKind = 'compute' | 'disk';

/**
 * One interval of a pod's accrual (ADR 21): its compute while it holds GPUs (or a CPU slot), its container disk
 * until it is terminated. Opened and closed in the transaction of the status change that starts or ends it, at the
 * command's time, with the rate it accrues at; `ended_at` is null while it runs.
 */
@Entity({ name: 'pod_usage' })
@Index('pod_usage_owner_idx', ['ownerId', 'startedAt'])
export class PodUsageEntity extends UsageIntervalColumns {
  @PrimaryColumn({ name: 'pod_id', type: 'text' })
  podId: string;

  @PrimaryColumn({ type: 'text' })
  kind: PodUsageKind;

  @Column({ name: 'cluster_id', type: 'text', nullable: true })
  clusterId: string | null;

  @Column({ name: 'endpoint_id', type: 'text', nullable: true })
  endpointId: string | null;

  @Column({ name: 'gpu_type_id', type: 'text', nullable: true })
  gpuTypeId: string | null;

  /** GPUs for compute (0 for a CPU pod), GB for disk. */
  @Column({ type: 'int' })
  units: number;
}
