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
import { CreatePodDto, UpdatePodDto } from './pod.dto.js';
import { VOCABULARIES, type Vocabulary } from '../errors/pod-field-names.js';
import { PodStatus } from './pod-status.js';
import { IsSealedEnv, type SealedEnv } from './sealed-env.js';
import type { ClusterCreatedEvent, ClusterDeletedEvent } from './pod.events.js';

/**
 * `pod.cmd.create`: a standalone pod, placed through `placement.cmd.reserve` with its `priority` and `interruptible`
 * (the REST body's, stored with the pod for its resumes). The REST body's fields, plus:
 */
export class CreatePodCommand extends CreatePodDto {
  /**
   * Environment the platform injects that is secret (a serverless worker's RUNPOD_AI_API_KEY), sealed: recorded
   * and stored only sealed, opened by pod-lifecycle when it hands the pod to the runtime. Wins over `env`.
   * Only system actors may set it (the REST body, CreatePodDto, has no such field).
   */
  @IsOptional()
  @IsSealedEnv()
  secretEnv?: SealedEnv;

  /**
   * The interface's mounts (the management API v2 sends them; /v1 has `networkVolumeId` and `volumeMountPath`).
   * pod-lifecycle applies the interface's rules: both kinds → 400, persistent on a CPU pod → 400.
   */
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => MountsDto)
  mounts?: MountsDto;

  /** Exposes 22/tcp and sets PUBLIC_KEY from `sshPublicKeys` (the account's keys; none → 400). */
  @IsOptional()
  @IsBoolean()
  startSsh?: boolean;

  /** Exposes 8888/http and sets a JUPYTER_PASSWORD (derived from the command id) unless `env` has one. */
  @IsOptional()
  @IsBoolean()
  startJupyter?: boolean;

  /**
   * The account's SSH public keys, which the gateway (owner of accounts) resolves when `startSsh` is true, so
   * pod-lifecycle never reads the gateway's tables (as for clusters).
   */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(64)
  @IsString({ each: true })
  @MaxLength(16 * 1024, { each: true })
  sshPublicKeys?: string[];

  /** The surface the request came from, whose names its refusals use (pod-field-names.ts); absent: v1. */
  @IsOptional()
  @IsIn(VOCABULARIES)
  vocabulary?: Vocabulary;
}

/** `pod.cmd.start` / `stop` / `reset` / `terminate`: a user's action on one pod. */
export class PodActionCommand {
  @IsString()
  @IsNotEmpty()
  podId: string;

  /**
   * The management API v2's rules: the action must be one of the pod's published `actions` (a no-op such as
   * stopping an EXITED pod, restarting a stopped one or terminating a cluster member is refused with 409 instead
   * of answered as the pod). Absent for /v1 and GraphQL, which keep their no-ops.
   */
  @IsOptional()
  @IsBoolean()
  publishedOnly?: boolean;
}

/**
 * `pod.cmd.update` (`PATCH /v1/pods/{id}` and `PATCH /v2/pods/{id}`): the v1 body's fields, and the interface's
 * mount update rules for v2's `mounts`; absent fields and an empty `mounts` change nothing. pod-lifecycle decides
 * what a change means for the pod's status (a container change restarts a RUNNING pod).
 */
export class UpdatePodCommand extends UpdatePodDto {
  @IsString()
  @IsNotEmpty()
  podId: string;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => MountsDto)
  mounts?: MountsDto;
}

/** The statuses a runtime driver may report: it never decides PROVISIONING or TERMINATED. */
export const OBSERVABLE_STATUSES = [
  PodStatus.Starting,
  PodStatus.Running,
  PodStatus.Exited,
  PodStatus.Error,
] as const;
export type ObservedStatus = (typeof OBSERVABLE_STATUSES)[number];

/**
 * `pod.cmd.observe`: what the runtime driver saw of one run of a pod's container (issued by pod-lifecycle's
 * driver with a system actor, recorded like every command so a replay reproduces the statuses). The status
 * machine decides what it changes; an observation of an older run (`generation`) is ignored.
 */
export class ObservePodCommand {
  @IsString()
  @IsNotEmpty()
  podId: string;

  /** The run the observation is about (the pod's `generation` when the driver started it). */
  @IsInt()
  @Min(0)
  @Type(() => Number)
  generation: number;

  @IsIn(OBSERVABLE_STATUSES)
  status: ObservedStatus;

  @IsOptional()
  @IsString()
  @MaxLength(1000)
  reason?: string;

  @IsOptional()
  @IsInt()
  @Type(() => Number)
  exitCode?: number;
}

/** The answer to `pod.cmd.observe`: whether the status machine took it, and the pod's status after it. */
export interface ObservePodResult {
  applied: boolean;
  status: PodStatus | null;
}

/**
 * `pod.cmd.seal-env`: moves variables of a pod's `env` into its `secretEnv`, sealed (pod-lifecycle issues it at boot
 * for worker pods created before worker keys were sealed; system actors only). Recorded, so a replay stores the same
 * sealed bytes. A name the pod's env no longer has, or already sealed, is left alone.
 */
export class SealPodEnvCommand {
  @IsString()
  @IsNotEmpty()
  podId: string;

  @IsSealedEnv()
  secretEnv: SealedEnv;
}

export interface SealPodEnvResult {
  /** The variables moved out of `env`. */
  sealed: string[];
}

/** `pod.cmd.host-failed`: an operator (or a fleet monitor) reports a dead host; its live pods go to ERROR. */
export class HostFailedCommand {
  @IsString()
  @IsNotEmpty()
  hostId: string;

  @IsOptional()
  @IsString()
  @MaxLength(1000)
  reason?: string;
}

export interface HostFailedResult {
  /** The pods moved to ERROR. */
  podIds: string[];
}

export class GetPodQuery {
  @IsString()
  @IsNotEmpty()
  podId: string;

  /**
   * The env's secret-looking values in clear (the user's own, a generated JUPYTER_PASSWORD among them): the gateway
   * asks for them only for a key that may manage the pods (full); masked otherwise. Platform secrets stay masked.
   */
  @IsOptional()
  @IsBoolean()
  withSecrets?: boolean;
}

/**
 * `pod.qry.states`: the lifecycle state of many pods at once (the autoscaler's control loop, one query per tick for
 * every worker). Pods that do not exist, or that the caller may not see, are left out of the answer.
 */
export class ListPodStatesQuery {
  @IsArray()
  @ArrayMaxSize(10_000)
  @IsString({ each: true })
  podIds: string[];
}

/** The largest page of `pod.qry.list`. */
export const MAX_POD_PAGE = 1000;

/** The caller's pods (terminated ones only when `includeTerminated`; cluster members unless `standaloneOnly`). */
export class ListPodsQuery {
  @IsOptional()
  @IsBoolean()
  includeTerminated?: boolean;

  /** The management API v2 lists cluster members only on request (`?includeClusterPods=true`). */
  @IsOptional()
  @IsBoolean()
  standaloneOnly?: boolean;

  /**
   * At most this many pods (a page): an account's whole list may not fit in one reply of the bus (NATS'
   * max_payload, 1 MB by default, is some thousand pods), so the gateway reads it in pages (pod-pages.ts).
   */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_POD_PAGE)
  limit?: number;

  /** The page after this pod (the last one of the page before), in the list's order: oldest first, then by id. */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  afterId?: string;

  /**
   * The env's secret-looking values in clear (the user's own, a generated JUPYTER_PASSWORD among them): the gateway
   * asks for them only for a key that may manage the pods (full); masked otherwise. Platform secrets stay masked.
   */
  @IsOptional()
  @IsBoolean()
  withSecrets?: boolean;
}

/** The member pods of a cluster (rank order), as the same PodView; a user sees only their own cluster's pods. */
export class ListPodsByClusterQuery {
  @IsString()
  @IsNotEmpty()
  clusterId: string;

  /**
   * The env's secret-looking values in clear (the user's own, a generated JUPYTER_PASSWORD among them): the gateway
   * asks for them only for a key that may manage the pods (full); masked otherwise. Platform secrets stay masked.
   */
  @IsOptional()
  @IsBoolean()
  withSecrets?: boolean;
}

/**
 * `pod.cmd.create-cluster-members`: pod-lifecycle's reaction to the scheduler's `cluster.evt.created`, recorded (an
 * id derived from the event) so that a rebuild creates the members where the live side did: the event as heard.
 */
export class CreateClusterMembersCommand {
  @IsObject()
  cluster: ClusterCreatedEvent;
}

/** `pod.cmd.terminate-cluster-members`: the reaction to `cluster.evt.deleted`, recorded the same way. */
export class TerminateClusterMembersCommand {
  @IsObject()
  cluster: ClusterDeletedEvent;
}

export interface ClusterMembersResult {
  /** The member pods created, or terminated. */
  pods: number;
}
