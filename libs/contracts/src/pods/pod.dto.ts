import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { ContainerImage, ContainerSettingsDto, PodVolume } from '../common/container-settings.dto.js';
import { PRIORITIES, type Priority } from '../quotas/priority.js';
import type { NetworkVolumeView } from '../volumes/network-volume.contracts.js';
import type { WaitReason } from '../common/wait-reason.js';
import type { PodStatus } from './pod-status.js';

/** What a user may ask of a pod; which ones a status allows is pod-lifecycle's transition table (docs/pods.md). */
export const POD_ACTIONS = ['start', 'stop', 'reset', 'terminate'] as const;
export type PodAction = (typeof POD_ACTIONS)[number];

/**
 * The actions the management API v2 publishes in a pod's `actions` and takes at `POST /v2/pods/{id}/action`
 * (RunPod's names: `restart` is our `reset`, the container recreated with its disk wiped).
 */
export const PUBLISHED_POD_ACTIONS = ['start', 'stop', 'restart', 'terminate'] as const;
export type PublishedPodAction = (typeof PUBLISHED_POD_ACTIONS)[number];

export const COMPUTE_TYPES = ['GPU', 'CPU'] as const;
export type ComputeType = (typeof COMPUTE_TYPES)[number];

/**
 * Body of `POST /v1/pods`: a standalone GPU or CPU pod, placed by the scheduler. Field names follow RunPod's
 * REST API. Every field a template provides (`templateId`) may be omitted here; a field given here wins.
 */
export class CreatePodDto extends ContainerSettingsDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(191)
  name: string;

  /** Container image; required unless the template gives one. */
  @ContainerImage()
  imageName?: string;

  /**
   * A volume disk of the pod's own, GB, at `volumeMountPath` (default `/workspace`): host-local persistent storage,
   * kept by a stop; 0 or absent for none (the template's, if it has one). Not with a network volume.
   */
  @PodVolume()
  volumeInGb?: number;

  /** `GPU` (default when a GPU type is named) or `CPU`. */
  @IsOptional()
  @IsIn(COMPUTE_TYPES)
  computeType?: ComputeType;

  /** GPU type id from the catalog. */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  gpuTypeId?: string;

  /** Acceptable GPU types in order of preference (RunPod's newer API); the first with capacity is used. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(16)
  @IsString({ each: true })
  gpuTypeIds?: string[];

  /** GPUs per pod (default 1 for a GPU pod, 0 for a CPU pod). */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(16)
  gpuCount?: number;

  /** CPU type id from the catalog, for CPU pods. */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  cpuFlavorId?: string;

  /** Preferred data centers in order; empty or absent lets the scheduler choose. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(32)
  @IsString({ each: true })
  dataCenterIds?: string[];

  @IsOptional()
  @IsString()
  @IsNotEmpty()
  templateId?: string;

  /** A network volume: the pod lands in the volume's data center. */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  networkVolumeId?: string;

  /**
   * This project's extension: `low`, `normal` (the default) or `high` against the account's other workloads
   * (docs/adr/0037-quotas-and-preemption.md).
   */
  @IsOptional()
  @IsIn(PRIORITIES)
  priority?: Priority;

  /** RunPod's interruptible (spot) pod: any other workload may preempt it (default false). */
  @IsOptional()
  @IsBoolean()
  interruptible?: boolean;
}

/**
 * Body of `PATCH /v1/pods/{id}` and `POST /v1/pods/{id}/update` (RunPod's v1 names); an absent field keeps its
 * value. A change to the container (image, args, env, ports, disk, registry credential) restarts a RUNNING pod;
 * the name and the mount path change without a restart (the path applies at the next start, as on /v2).
 */
export class UpdatePodDto extends ContainerSettingsDto {
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(191)
  name?: string;

  @ContainerImage()
  imageName?: string;
}

/** A pod's lifecycle state alone (`pod.qry.states`): what a controller of many pods reads on every pass. */
export type PodStateView = Pick<
  PodView,
  'id' | 'status' | 'desiredStatus' | 'statusReason' | 'lastStatusChange'
>;

/** What the service shows of a pod (`GET /v1/pods/{id}` and every pod action's answer). */
export interface PodView {
  id: string;
  name: string;
  /** The owning user. */
  userId: string;
  image: string;
  /** RunPod's name for `image`. */
  imageName: string;
  dockerArgs: string | null;
  /** Environment; values of secret-looking names (SECRET, PASSWORD, TOKEN, KEY) are masked. */
  env: Record<string, string>;
  /** Exposed ports, `<port>/http` or `<port>/tcp`. */
  ports: string[];
  /** Container port (`"22"`) → public port on `publicIp`; empty until placed. */
  portMappings: Record<string, number>;
  publicIp: string | null;
  containerDiskInGb: number;
  /** The pod's volume disk, GB (a persistent mount, at `volumeMountPath`); 0 when it has none. */
  volumeInGb: number;
  volumeMountPath: string | null;
  computeType: 'GPU' | 'CPU';
  gpuTypeId: string | null;
  gpuCount: number;
  cpuFlavorId: string | null;
  /** The host the pod is placed on (RunPod's `machineId`). */
  machineId: string | null;
  dataCenterId: string | null;
  machine: PodMachineView;
  clusterId: string | null;
  /** The serverless endpoint whose worker the pod is (the autoscaler made it); null for any other pod. */
  endpointId: string | null;
  clusterRank: number | null;
  clusterRole: string | null;
  /** Address on the cluster's overlay network, for cluster members. */
  clusterIp: string | null;
  templateId: string | null;
  containerRegistryAuthId: string | null;
  networkVolumeId: string | null;
  status: PodStatus;
  /** What the user last asked for: RUNNING, EXITED or TERMINATED. */
  desiredStatus: PodStatus;
  /** Why the pod is in its status (the driver's reason for ERROR, say). */
  statusReason: string | null;
  /**
   * Ours, beside RunPod's fields: why the pod is not RUNNING (or, RUNNING, that its host drains), machine-readable
   * (`podWaitReason`, derived from the status and statusReason); null for a RUNNING pod nothing threatens.
   */
  reason: WaitReason | null;
  /**
   * Ours, beside RunPod's fields: what its host's state means for the pod while it still runs there, `HOST_DRAINING:
   * …` while the host drains (docs/adr/0039-live-fleet.md); null otherwise. Cleared when the drain is called off.
   */
  hostNotice: string | null;
  /** Ours: ISO time the pod is stopped at because its host drains; null when it is not. */
  stopDeadline: string | null;
  /** ISO time of the last status change. */
  lastStatusChange: string;
  lastStartedAt: string | null;
  createdAt: string;
  /** What the pod costs per hour while it runs (compute and container disk, at its placement's prices). */
  costPerHr: number;
  /** `low`, `normal` or `high` against the account's other workloads. */
  priority: Priority;
  /** An interruptible (spot) pod: any other workload may preempt it. */
  interruptible: boolean;
  /** The actions the current status allows. */
  allowedActions: PodAction[];
  /**
   * The actions the management API v2 accepts now (any other answers 409 there): RUNNING stop/restart/terminate;
   * EXITED, ERROR start/terminate; PROVISIONING, STARTING stop/terminate; never terminate for a cluster member.
   */
  actions: PublishedPodAction[];
}

/**
 * A pod's host as the catalog describes it. Every pod view carries the GPU type and data center; the rest only
 * `GET /v1/pods/{id}?includeMachine=true` reads (from cluster-scheduler's catalog).
 */
export interface PodMachineView {
  gpuTypeId: string | null;
  dataCenterId: string | null;
  /** The host (the pod's `machineId`). */
  podHostId?: string | null;
  /** The catalog's name of the GPU type. */
  gpuDisplayName?: string | null;
  /** GPU memory in GB, per GPU. */
  gpuMemoryInGb?: number | null;
  /** The CPU type of a CPU pod. */
  cpuTypeId?: string | null;
  /** The region code (US, RO, …) of the data center. */
  location?: string | null;
}

/** `GET /v1/pods/{id}`: the pod, and its network volume with `?includeNetworkVolume=true` (null if it has none). */
export interface PodDetailsView extends PodView {
  networkVolume?: NetworkVolumeView | null;
}
