import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { EndpointType, GpuTier, RegionCode, ScalerType } from '@app/contracts';

/**
 * A serverless endpoint's saved configuration. A deleted endpoint keeps its row (`deletedAt` set, invisible to
 * users) until the autoscaler has terminated its workers; then the row goes.
 */
@Entity({ name: 'endpoints' })
export class EndpointEntity {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Index('endpoints_owner_idx')
  @Column({ name: 'owner_id', type: 'text' })
  ownerId: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text' })
  type: EndpointType;

  @Column({ name: 'template_id', type: 'text' })
  templateId: string;

  /** GPU tiers in order of preference. */
  @Column({ name: 'gpu_ids', type: 'text', array: true })
  gpuIds: GpuTier[];

  @Column({ name: 'gpu_count', type: 'integer' })
  gpuCount: number;

  /** Allowed region codes; empty means any. */
  @Column({ type: 'text', array: true })
  locations: RegionCode[];

  @Column({ name: 'idle_timeout', type: 'integer' })
  idleTimeout: number;

  @Column({ name: 'scaler_type', type: 'text' })
  scalerType: ScalerType;

  @Column({ name: 'scaler_value', type: 'integer' })
  scalerValue: number;

  @Column({ name: 'workers_min', type: 'integer' })
  workersMin: number;

  @Column({ name: 'workers_max', type: 'integer' })
  workersMax: number;

  @Column({ name: 'flash_boot', type: 'boolean' })
  flashBoot: boolean;

  @Column({ name: 'network_volume_id', type: 'text', nullable: true })
  networkVolumeId: string | null;

  @Column({ name: 'allowed_cuda_versions', type: 'text' })
  allowedCudaVersions: string;

  /** Extra worker environment. */
  @Column({ type: 'jsonb' })
  env: Record<string, string>;

  /**
   * The worker pods' priority against the owner's other workloads: low 0, normal 1, high 2 (priorityRank), as
   * pod-lifecycle and the scheduler keep it. Workers are never interruptible.
   */
  @Column({ type: 'smallint', default: 1 })
  priority: number;

  /** The workers' API key, sealed by the gateway (associated data = the endpoint id). */
  @Column({ name: 'ai_key_sealed', type: 'text' })
  aiKeySealed: string;

  @Column({ type: 'integer' })
  version: number;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  /** Set by delete: the autoscaler terminates the workers, then removes the row. */
  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt: Date | null;
}
