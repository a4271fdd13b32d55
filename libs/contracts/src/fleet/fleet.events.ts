import { Type } from 'class-transformer';
import { IsArray, IsIn, IsOptional, IsString, ValidateNested } from 'class-validator';
import { HEALTH_CODES, HOST_STATES, type HealthCode, type HostState } from './fleet.contracts.js';

/** A pod holding capacity on a host when its state changed. */
export class HostPod {
  @IsString()
  podId: string;

  @IsString()
  ownerId: string;

  @IsOptional()
  @IsString()
  clusterId?: string | null;
}

/**
 * `fleet.evt.host-changed` (cluster-scheduler, in the transaction that changed the host's shown state): DRAINING
 * makes the autoscaler replace the host's workers and pod-lifecycle tell its users' pods; UNHEALTHY and GONE make
 * pod-lifecycle stop its pods (HOST_UNHEALTHY, HOST_GONE) and the broker hand their workers' leases back.
 */
export class HostChangedEvent {
  @IsString()
  hostId: string;

  @IsString()
  dataCenterId: string;

  @IsIn(HOST_STATES)
  state: HostState;

  @IsIn(HOST_STATES)
  previousState: HostState;

  /** The cordon's, drain's or health report's sentence. */
  @IsOptional()
  @IsString()
  reason?: string | null;

  @IsOptional()
  @IsIn(HEALTH_CODES)
  healthCode?: HealthCode | null;

  /** While DRAINING: ISO time users' pods are stopped. */
  @IsOptional()
  @IsString()
  drainDeadline?: string | null;

  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => HostPod)
  pods: HostPod[];
}

/** `fleet.evt.drain-expired` (cluster-scheduler's `fleet.cmd.expire-drains`): pod-lifecycle stops what is left. */
export class DrainExpiredEvent {
  @IsString()
  hostId: string;

  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => HostPod)
  pods: HostPod[];
}

/**
 * `pod.evt.host-start-failures` (pod-lifecycle, in the `pod.cmd.observe` transaction that counted the last of them):
 * pods failed to start on the host one after the other; pod-lifecycle answers it with a recorded
 * `fleet.cmd.report-health` (source `start-failures`, code START_FAILURES).
 */
export class HostStartFailuresEvent {
  @IsString()
  hostId: string;

  @IsArray()
  @IsString({ each: true })
  podIds: string[];

  /** `3 pods failed to start in a row: …`. */
  @IsString()
  reason: string;
}

/** Status reasons pods show for their host's state (`<CODE>: <sentence>`, as PREEMPTED). */
export const HOST_REASONS = {
  draining: 'HOST_DRAINING',
  drained: 'HOST_DRAINED',
  unhealthy: 'HOST_UNHEALTHY',
  gone: 'HOST_GONE',
} as const;
