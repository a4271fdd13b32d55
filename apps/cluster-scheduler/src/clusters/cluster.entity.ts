import { Column, Entity, Exclusion, Index, PrimaryColumn } from 'typeorm';
import type { ClusterType } from '@app/contracts';

export interface ClusterMounts {
  persistent?: { size: number; path: string };
  network?: { volumeId: string; path: string }[];
}

/**
 * A cluster. Deleting one sets `deleted_at`: its VXLAN id and CIDR leave the live set at once (the partial unique
 * index and the exclusion constraint only cover live clusters) and can be handed out again.
 */
@Entity({ name: 'clusters' })
@Index('clusters_vxlan_live_uq', ['vxlanId'], { unique: true, where: '"deleted_at" IS NULL' })
@Index('clusters_owner_idx', ['ownerId', 'createdAt'])
@Exclusion('clusters_cidr_live_excl', 'USING gist ("cidr" inet_ops WITH &&) WHERE ("deleted_at" IS NULL)')
export class ClusterEntity {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ name: 'owner_id', type: 'text' })
  ownerId: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text' })
  type: ClusterType;

  @Column({ name: 'gpu_type_id', type: 'text' })
  gpuTypeId: string;

  @Column({ name: 'gpu_count_per_pod', type: 'integer' })
  gpuCountPerPod: number;

  @Column({ name: 'pod_count', type: 'integer' })
  podCount: number;

  @Column({ name: 'data_center_id', type: 'text' })
  dataCenterId: string;

  @Column({ type: 'cidr' })
  cidr: string;

  @Column({ name: 'vxlan_id', type: 'integer' })
  vxlanId: number;

  @Column({ name: 'vxlan_port', type: 'integer' })
  vxlanPort: number;

  @Column({ type: 'text' })
  image: string;

  @Column({ type: 'text', nullable: true })
  args: string | null;

  @Column({ type: 'integer' })
  disk: number;

  /** The user's env (every member also gets the peer-discovery variables). */
  @Column({ type: 'jsonb' })
  env: Record<string, string>;

  /**
   * The variables every member's environment has alike (`clusterEnv`: the user's env and the cluster's
   * peer-discovery variables); each member row holds only its own on top. Null for a cluster created before this
   * was kept apart: its member rows hold their whole environment.
   */
  @Column({ name: 'member_env', type: 'jsonb', nullable: true })
  memberEnv: Record<string, string> | null;

  /** Ports every member exposes (the user's, plus 22/tcp with startSsh and 8888/http with startJupyter). */
  @Column({ type: 'text', array: true })
  ports: string[];

  @Column({ name: 'start_jupyter', type: 'boolean' })
  startJupyter: boolean;

  @Column({ name: 'start_ssh', type: 'boolean' })
  startSsh: boolean;

  @Column({ type: 'jsonb', nullable: true })
  mounts: ClusterMounts | null;

  @Index('clusters_volume_idx')
  @Column({ name: 'network_volume_id', type: 'text', nullable: true })
  networkVolumeId: string | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt: Date | null;
}
