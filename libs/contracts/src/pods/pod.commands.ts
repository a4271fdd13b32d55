import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, MaxLength, Min } from 'class-validator';
import { CreatePodDto } from './pod.dto.js';
import { PodStatus } from './pod-status.js';

/** `pod.cmd.create`: a standalone pod (placed through `placement.cmd.reserve`). Same fields as the REST body. */
export class CreatePodCommand extends CreatePodDto {}

/** `pod.cmd.start` / `stop` / `reset` / `terminate`: a user's action on one pod. */
export class PodActionCommand {
  @IsString()
  @IsNotEmpty()
  podId: string;
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
}

/** The caller's pods (terminated ones only when `includeTerminated`). */
export class ListPodsQuery {
  @IsOptional()
  @IsBoolean()
  includeTerminated?: boolean;
}

/** The member pods of a cluster (rank order), as the same PodView; a user sees only their own cluster's pods. */
export class ListPodsByClusterQuery {
  @IsString()
  @IsNotEmpty()
  clusterId: string;
}
