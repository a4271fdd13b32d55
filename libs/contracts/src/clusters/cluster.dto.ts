import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
  registerDecorator,
  type ValidationArguments,
} from 'class-validator';
import type { PodStatus } from '../pods/pod-status.js';
import { PRIORITIES, type Priority } from '../quotas/priority.js';
import { MountsDto } from '../common/mounts.dto.js';
import { IsEnvRecord } from '../common/string-record.js';
import { ContainerArgs, ContainerDisk } from '../common/container-settings.dto.js';

/** The interface's ClusterType, exactly. */
export const CLUSTER_TYPES = ['TRAINING', 'SLURM', 'RAY', 'APPLICATION'] as const;
export type ClusterType = (typeof CLUSTER_TYPES)[number];

export const CLUSTER_MIN_PODS = 2;
export const CLUSTER_MAX_PODS = 250;

/** `<port>/http` or `<port>/tcp` with a port of 1..65535. */
export const CLUSTER_PORT_SPEC =
  /^(6553[0-5]|655[0-2]\d|65[0-4]\d{2}|6[0-4]\d{3}|[1-5]\d{4}|[1-9]\d{0,3})\/(http|tcp)$/;

/** ClusterCompute: no additional properties, all three required. `gpuCountPerPod` ≤ maxCount is the scheduler's check. */
export class ClusterComputeDto {
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  gpuTypeId: string;

  @IsInt()
  @Min(1)
  gpuCountPerPod: number;

  @IsInt()
  @Min(CLUSTER_MIN_PODS)
  @Max(CLUSTER_MAX_PODS)
  podCount: number;
}

/** Body of `POST /v2/clusters`, exactly the interface's properties; anything else is rejected (422). */
export class CreateClusterDto {
  @IsString()
  @MinLength(1)
  @MaxLength(191)
  name: string;

  /** This project's extension: `low`, `normal` (the default) or `high` against the team's other workloads. */
  @IsOptional()
  @IsIn(PRIORITIES)
  priority?: Priority;

  @IsIn(CLUSTER_TYPES)
  type: ClusterType;

  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => ClusterComputeDto)
  compute: ClusterComputeDto;

  /** Preferred data centers in order; omitted or empty lets the scheduler choose. Always one data center. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(64)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  dataCenterIds?: string[];

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => MountsDto)
  mounts?: MountsDto;

  @IsOptional()
  @IsBoolean()
  startJupyter?: boolean;

  /** Injects PUBLIC_KEY (the account's registered SSH public keys) into every member pod and exposes 22/tcp. */
  @IsOptional()
  @IsBoolean()
  startSsh?: boolean;

  @ContainerArgs()
  args?: string;

  /** Container disk, GB (ephemeral). */
  @ContainerDisk()
  disk?: number;

  @IsOptional()
  @IsEnvRecord()
  env?: Record<string, string>;

  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(512)
  image?: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(32)
  @Matches(CLUSTER_PORT_SPEC, {
    each: true,
    message: 'ports must be a list of <1-65535>/http or <1-65535>/tcp',
  })
  ports?: string[];
}

/** The interface's ClusterCompute as the service returns it. */
export interface ClusterComputeView {
  gpuTypeId: string;
  gpuCountPerPod: number;
  podCount: number;
}

/** ClusterPodsSummary: `byStatus` omits statuses with zero pods. */
export interface ClusterPodsSummary {
  total: number;
  byStatus: Partial<Record<PodStatus, number>>;
}

/** ClusterNetwork: the VXLAN overlay of the member pods. */
export interface ClusterNetworkView {
  cidr: string;
  vxlanId?: number;
  vxlanPort?: number;
}

/** ClusterPrimary: `sshEndpoint` only while the primary is RUNNING and exposes 22/tcp. */
export interface ClusterPrimaryView {
  podId: string;
  status: PodStatus;
  sshEndpoint?: string;
}

/** The interface's Cluster: optional fields are omitted (never null) while unset. */
export interface ClusterView {
  id: string;
  name: string;
  type: ClusterType;
  compute: ClusterComputeView;
  template?: string;
  dataCenterId?: string;
  pods: ClusterPodsSummary;
  network?: ClusterNetworkView;
  primary?: ClusterPrimaryView;
  createdAt: string;
}

/**
 * A create field `PATCH /v2/clusters/{id}` cannot change (RunPod's UpdateClusterRequest is a rename): present at
 * all, it is refused naming itself (422); in the OpenAPI description, a property that must be absent.
 */
function FixedAtCreation(): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'isAbsent',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (value: unknown) => value === undefined,
        defaultMessage: (args: ValidationArguments) =>
          `${args.property} is fixed at creation and cannot change: this PATCH only renames the cluster (name)`,
      },
    });
  };
}

/**
 * Body of `PATCH /v2/clusters/{id}`: RunPod's UpdateClusterRequest, a rename. Compute shape (podCount included),
 * type and container configuration are fixed at creation: each create field is refused by name (422), anything
 * else as an unknown property.
 */
export class UpdateClusterDto {
  @IsString()
  @MinLength(1)
  @MaxLength(191)
  name: string;

  @FixedAtCreation() type?: never;
  @FixedAtCreation() compute?: never;
  @FixedAtCreation() dataCenterIds?: never;
  @FixedAtCreation() mounts?: never;
  @FixedAtCreation() startJupyter?: never;
  @FixedAtCreation() startSsh?: never;
  @FixedAtCreation() args?: never;
  @FixedAtCreation() disk?: never;
  @FixedAtCreation() env?: never;
  @FixedAtCreation() image?: never;
  @FixedAtCreation() ports?: never;
}

/** `GET /v2/clusters`: the list, wrapped as RunPod's ListClustersResponse. */
export interface ClusterList {
  clusters: ClusterView[];
}

/**
 * A member pod as the scheduler knows it (placement, overlay address, container configuration, last status
 * reported by pod-lifecycle). `GET /v2/clusters/{id}/pods` answers with pod-lifecycle's full pods when it serves
 * `pod.qry.list-by-cluster`, and with these otherwise.
 */
export interface ClusterMemberView {
  id: string;
  name: string;
  clusterId: string;
  clusterRank: number;
  clusterRole: string;
  clusterIp: string;
  status: PodStatus;
  image: string;
  dockerArgs: string | null;
  env: Record<string, string>;
  ports: string[];
  portMappings: Record<string, number>;
  publicIp: string;
  containerDiskInGb: number;
  gpuTypeId: string;
  gpuCount: number;
  machineId: string;
  dataCenterId: string;
  networkVolumeId: string | null;
  lastStatusChange: string;
  createdAt: string;
}
