import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import type { ClusterMemberRole, PodStatus } from '@app/contracts';
import { ClusterEntity } from './cluster.entity.js';

/** A member pod of a cluster as the scheduler placed it, with the last status pod-lifecycle reported. */
@Entity({ name: 'cluster_members' })
@Index('cluster_members_rank_uq', ['clusterId', 'rank'], { unique: true })
export class ClusterMemberEntity {
  @PrimaryColumn({ name: 'pod_id', type: 'text' })
  podId: string;

  @ForeignKey(() => ClusterEntity)
  @Column({ name: 'cluster_id', type: 'text' })
  clusterId: string;

  @Column({ type: 'integer' })
  rank: number;

  @Column({ type: 'text' })
  role: ClusterMemberRole;

  @Column({ type: 'text' })
  name: string;

  @Column({ name: 'overlay_ip', type: 'inet' })
  overlayIp: string;

  @Column({ name: 'host_id', type: 'text' })
  hostId: string;

  @Column({ name: 'public_ip', type: 'text' })
  publicIp: string;

  @Column({ name: 'port_mappings', type: 'jsonb' })
  portMappings: Record<string, number>;

  /**
   * The member's own variables (its role, rank and address), added on top of its cluster's `memberEnv`; for a cluster
   * created before that was kept apart, the whole environment (cluster-topology.ts, `joinEnv`).
   */
  @Column({ type: 'jsonb' })
  env: Record<string, string>;

  @Column({ type: 'text' })
  status: PodStatus;

  @Column({ name: 'status_at', type: 'timestamptz' })
  statusAt: Date;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
