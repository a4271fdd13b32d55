import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { MountsDto } from '../common/mounts.dto.js';
import { PRIORITIES, type Priority } from '../quotas/priority.js';
import type { WaitReason } from '../common/wait-reason.js';
import type { PodStatus } from './pod-status.js';
import { PUBLISHED_POD_ACTIONS, type PublishedPodAction } from './pod.dto.js';
import { IsEnvRecord } from '../common/string-record.js';
import {
  ContainerArgs,
  ContainerDisk,
  ContainerImage,
  ContainerPorts,
} from '../common/container-settings.dto.js';

/** `gpu` of `POST /v2/pods`: a catalog GPU type and how many. */
export class PodGpuRequestDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(191)
  id: string;

  /** Default 1. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(16)
  count?: number;
}

/** `cpu` of `POST /v2/pods`: a catalog CPU flavor. */
export class PodCpuRequestDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(191)
  id: string;

  /**
   * RunPod's schema requires it (a power of two, at least 2); here a flavor has one size, so it is checked and
   * not used for placement.
   */
  @IsInt()
  @Min(2)
  @Max(512)
  vcpuCount: number;
}

export const CLOUD_TIERS = ['SECURE', 'COMMUNITY'] as const;

/**
 * Body of `POST /v2/pods` (RunPod's management API v2 names). Exactly one of `gpu` or `cpu` (pod-lifecycle
 * answers 422 otherwise); `image` unless `templateId` gives one.
 */
export class CreatePodV2Dto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(191)
  name: string;

  @ContainerImage()
  image?: string;

  /** Container disk, GB (ephemeral, wiped on restart). */
  @ContainerDisk()
  disk?: number;

  /** Each `<port>/http` or `<port>/tcp`. */
  @ContainerPorts()
  ports?: string[];

  /** Arguments passed to the container entrypoint. */
  @ContainerArgs()
  args?: string;

  @IsOptional()
  @IsEnvRecord()
  env?: Record<string, string>;

  /** Preferred data centers in order; omitted or empty lets the scheduler choose. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(32)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  dataCenterIds?: string[];

  /** The interface's mounts: at most one of `persistent` or `network` (both → 400). */
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => MountsDto)
  mounts?: MountsDto;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => PodGpuRequestDto)
  gpu?: PodGpuRequestDto;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => PodCpuRequestDto)
  cpu?: PodCpuRequestDto;

  /** Exposes 22/tcp and injects PUBLIC_KEY with the account's SSH public keys (none registered → 400). */
  @IsOptional()
  @IsBoolean()
  startSsh?: boolean;

  /** Exposes 8888/http and injects a generated JUPYTER_PASSWORD unless `env` sets one. */
  @IsOptional()
  @IsBoolean()
  startJupyter?: boolean;

  /** Accepted for RunPod's clients (default SECURE); this deployment has one tier, so it changes nothing. */
  @IsOptional()
  @IsIn(CLOUD_TIERS)
  cloud?: (typeof CLOUD_TIERS)[number];

  @IsOptional()
  @IsString()
  @IsNotEmpty()
  templateId?: string;

  /** A registry credential of the caller's, to pull a private image. */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  registry?: string;

  /**
   * This project's extension: `low`, `normal` (the default) or `high` against the account's other workloads
   * (docs/adr/0037-quotas-and-preemption.md).
   */
  @IsOptional()
  @IsIn(PRIORITIES)
  priority?: Priority;

  /**
   * An interruptible (spot) pod: any other workload may preempt it (default false). RunPod's v2 body has no such
   * field; it is their v1 `interruptible`, under the same name.
   */
  @IsOptional()
  @IsBoolean()
  interruptible?: boolean;
}

/**
 * Body of `PATCH /v2/pods/{id}`: what a pod may change after create, in RunPod's names. A change to the container
 * (image, args, disk, ports, env, registry) restarts a RUNNING pod; mounts follow the interface's update rules.
 */
export class UpdatePodV2Dto {
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(191)
  name?: string;

  @ContainerImage()
  image?: string;

  /** Arguments passed to the container entrypoint. */
  @ContainerArgs()
  args?: string;

  /** Container disk, GB (ephemeral, wiped on restart). */
  @ContainerDisk()
  disk?: number;

  /** Each `<port>/http` or `<port>/tcp`; replaces the pod's ports. */
  @ContainerPorts()
  ports?: string[];

  /** Replaces the pod's env; a masked value (********) sent back keeps the value it stands for. */
  @IsOptional()
  @IsEnvRecord()
  env?: Record<string, string>;

  /** A registry credential of the caller's; `null` removes the pod's. */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  registry?: string | null;

  /** Omitted or `{}` leaves the mount as it is; only a mount's `path` may change. */
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => MountsDto)
  mounts?: MountsDto;
}

/** Body of `POST /v2/pods/{id}/action`. */
export class PodActionV2Dto {
  @IsIn(PUBLISHED_POD_ACTIONS)
  action: PublishedPodAction;
}

/** One exposed port of a running pod, as SkyPilot reads `pod.runtime.ports`. */
export interface PodRuntimePort {
  /** The container's port. */
  private: number;
  /** The port on `ip`. */
  public: number;
  ip: string;
  type: 'http' | 'tcp';
}

/**
 * A pod as the management API v2 shows it (`GET /v2/pods/{id}` and the answers of create and actions): RunPod's
 * field names, the status machine's published `actions`, `runtime` once the pod runs and `ssh.direct` when it
 * exposes 22/tcp on a public address.
 */
export interface PodV2View {
  id: string;
  name: string;
  status: PodStatus;
  desiredStatus: PodStatus;
  /** Why the pod is in its status (the driver's reason for ERROR, say). */
  statusReason: string | null;
  /** Ours: why the pod is not RUNNING (or that its host drains), machine-readable; null for a RUNNING pod. */
  reason: WaitReason | null;
  /** `HOST_DRAINING: …` while its host drains (it is stopped at `stopDeadline`); null otherwise. */
  hostNotice: string | null;
  /** ISO time the pod is stopped at because its host drains; null when it is not. */
  stopDeadline: string | null;
  actions: PublishedPodAction[];
  image: string;
  args: string | null;
  /** Container disk, GB. */
  disk: number;
  /** Environment; secret-looking values read back as ********. */
  env: Record<string, string>;
  ports: string[];
  gpu: { id: string | null; count: number } | null;
  cpu: { id: string | null } | null;
  dataCenterId: string | null;
  machineId: string | null;
  publicIp: string | null;
  /** Container port (`"22"`) → public port on `publicIp`. */
  portMappings: Record<string, number>;
  /** Null until the pod is RUNNING. */
  runtime: { ports: PodRuntimePort[] } | null;
  ssh: { direct: { ip: string; port: number; command: string } | null };
  templateId: string | null;
  registry: string | null;
  networkVolumeId: string | null;
  /** The pod's volume disk, GB (`mounts.persistent.size`); 0 when it has none. */
  volumeInGb: number;
  volumeMountPath: string | null;
  /** The serverless endpoint whose worker the pod is; null for any other pod. */
  endpointId: string | null;
  /** Set for a cluster member. */
  cluster: { id: string; rank: number | null; role: string | null; ip: string | null } | null;
  lastStatusChange: string;
  lastStartedAt: string | null;
  createdAt: string;
  /** What the pod costs per hour while it runs (compute and container disk). */
  costPerHr: number;
  /** `low`, `normal` or `high` against the account's other workloads. */
  priority: Priority;
  /** An interruptible (spot) pod: any other workload may preempt it. */
  interruptible: boolean;
}

/** `GET /v2/pods`: the list, wrapped as the management API v2 wraps lists. */
export interface PodV2List {
  pods: PodV2View[];
}
