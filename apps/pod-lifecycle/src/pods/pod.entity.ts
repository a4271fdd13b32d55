import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { ClusterMemberSpec, PodStatus, SealedEnv } from '@app/contracts';
import { NUMERIC_AS_NUMBER } from '@app/database';

export type PodMounts = NonNullable<ClusterMemberSpec['mounts']>;

/** A pod: its configuration, its placement and its status. Only pod-lifecycle writes it. */
@Entity({ name: 'pods' })
@Index('pods_owner_idx', ['ownerId', 'createdAt'])
// The account's list (live pods, oldest first, a keyset page): an account's terminated history is most of its pods.
@Index('pods_owner_live_idx', ['ownerId', 'createdAt', 'id'], { where: "status <> 'TERMINATED'" })
@Index('pods_cluster_idx', ['clusterId', 'clusterRank'])
@Index('pods_host_idx', ['hostId'])
@Index('pods_template_idx', ['templateId'])
@Index('pods_registry_auth_idx', ['registryAuthId'])
@Index('pods_endpoint_idx', ['endpointId'], { where: 'endpoint_id IS NOT NULL' })
export class PodEntity {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ name: 'owner_id', type: 'text' })
  ownerId: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text' })
  image: string;

  @Column({ type: 'text', nullable: true })
  args: string | null;

  /** As given (unmasked: the container needs it; it is the user's own data); masked only in views. */
  @Column({ type: 'jsonb' })
  env: Record<string, string>;

  /**
   * What the platform injects that is secret (a worker's key), sealed exactly as `pod.cmd.create` carried it (so a
   * replay stores the same bytes); opened only when the runtime driver is handed the pod. Wins over `env`.
   */
  @Column({ name: 'secret_env', type: 'jsonb', default: () => "'{}'" })
  secretEnv: SealedEnv;

  @Column({ type: 'jsonb' })
  ports: string[];

  /** `22/tcp` → public port, from the placement. */
  @Column({ name: 'port_mappings', type: 'jsonb' })
  portMappings: Record<string, number>;

  @Column({ name: 'public_ip', type: 'text', nullable: true })
  publicIp: string | null;

  @Column({ name: 'container_disk_gb', type: 'int' })
  containerDiskGb: number;

  @Column({ name: 'volume_mount_path', type: 'text', nullable: true })
  volumeMountPath: string | null;

  @Column({ name: 'gpu_type_id', type: 'text', nullable: true })
  gpuTypeId: string | null;

  @Column({ name: 'gpu_count', type: 'int' })
  gpuCount: number;

  @Column({ name: 'cpu_type_id', type: 'text', nullable: true })
  cpuTypeId: string | null;

  @Column({ name: 'host_id', type: 'text', nullable: true })
  hostId: string | null;

  @Column({ name: 'data_center_id', type: 'text', nullable: true })
  dataCenterId: string | null;

  @Column({ name: 'cluster_id', type: 'text', nullable: true })
  clusterId: string | null;

  @Column({ name: 'cluster_rank', type: 'int', nullable: true })
  clusterRank: number | null;

  @Column({ name: 'cluster_role', type: 'text', nullable: true })
  clusterRole: string | null;

  @Column({ name: 'overlay_ip', type: 'text', nullable: true })
  overlayIp: string | null;

  /** Mounts as the cluster or the request gave them (persistent or network). */
  @Column({ type: 'jsonb', nullable: true })
  mounts: PodMounts | null;

  @Column({ name: 'template_id', type: 'text', nullable: true })
  templateId: string | null;

  @Column({ name: 'registry_auth_id', type: 'text', nullable: true })
  registryAuthId: string | null;

  @Column({ name: 'network_volume_id', type: 'text', nullable: true })
  networkVolumeId: string | null;

  @Column({ type: 'text' })
  status: PodStatus;

  @Column({ name: 'desired_status', type: 'text' })
  desiredStatus: PodStatus;

  @Column({ name: 'status_reason', type: 'text', nullable: true })
  statusReason: string | null;

  /**
   * What its host's state means for the pod, `HOST_DRAINING: …` while the host drains (set and cleared by
   * pod.cmd.host-notice; docs/adr/0039-live-fleet.md). Kept apart from `statusReason`, which its status changes
   * rewrite: the notice holds whatever the pod does until the drain ends.
   */
  @Column({ name: 'host_notice', type: 'text', nullable: true })
  hostNotice: string | null;

  /** When the notice was given: since when its reason (HOST_DRAINING) holds. */
  @Column({ name: 'host_notice_at', type: 'timestamptz', nullable: true })
  hostNoticeAt: Date | null;

  /** When a drain of its host stops the pod (with `hostNotice`). */
  @Column({ name: 'stop_deadline', type: 'timestamptz', nullable: true })
  stopDeadline: Date | null;

  /** The current run of the container: +1 on start and reset; observations of older runs are ignored. */
  @Column({ type: 'int' })
  generation: number;

  /** The container disk's incarnation: +1 on reset (the driver wipes the disk when it changes). */
  @Column({ name: 'disk_epoch', type: 'int' })
  diskEpoch: number;

  @Column({ name: 'last_status_change', type: 'timestamptz' })
  lastStatusChange: Date;

  @Column({ name: 'last_started_at', type: 'timestamptz', nullable: true })
  lastStartedAt: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  /** What its compute costs per hour, from its latest placement (ADR 21); 0 before prices existed. */
  @Column({
    name: 'compute_per_hr',
    type: 'numeric',
    precision: 14,
    scale: 6,
    default: () => "'0'",
    transformer: NUMERIC_AS_NUMBER,
  })
  computePerHr: number;

  @Column({
    name: 'container_disk_per_gb_hr',
    type: 'numeric',
    precision: 14,
    scale: 8,
    default: () => "'0'",
    transformer: NUMERIC_AS_NUMBER,
  })
  containerDiskPerGbHr: number;

  /**
   * Against the owner's other workloads: low 0, normal 1, high 2 (priorityRank), as the scheduler's ledger keeps it.
   * Set at create (a cluster member has its cluster's); every reservation of the pod, a resume's too, carries it.
   */
  @Column({ type: 'smallint', default: 1 })
  priority: number;

  /** An interruptible (spot) pod: any other workload may preempt it. Never a cluster member or a worker. */
  @Column({ type: 'boolean', default: false })
  interruptible: boolean;

  /** The serverless endpoint a worker pod serves (set by the platform only), for its usage. */
  @Column({ name: 'endpoint_id', type: 'text', nullable: true })
  endpointId: string | null;
}
