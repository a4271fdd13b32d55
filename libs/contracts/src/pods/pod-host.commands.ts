import { Type } from 'class-transformer';
import {
  IsArray,
  IsIn,
  IsISO8601,
  IsNotEmpty,
  IsOptional,
  IsString,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { HEALTH_CODES, HOST_STATES, type HealthCode, type HostState } from '../fleet/fleet.contracts.js';
import { HostPod } from '../fleet/fleet.events.js';

/**
 * The consequences of a host's state for its pods (docs/adr/0039-live-fleet.md), each a command pod-lifecycle
 * records when it hears the scheduler's `fleet.evt.host-changed` or `fleet.evt.drain-expired` (an id derived from
 * the event, its time; none in REPLAY_MODE), so a rebuild applies them where the live side did. The pods acted on
 * are the live ones on the host among the event's list (the pods holding capacity there when the scheduler
 * changed it), each locked by id after the host's lock (which a pod's create takes too), so the set does not depend
 * on which of two replicas' commands committed first.
 */

/** The states a host is lost in: its pods cannot run there any more. */
export const LOST_HOST_STATES = ['UNHEALTHY', 'GONE'] as const;
export type LostHostState = (typeof LOST_HOST_STATES)[number];

/**
 * `pod.cmd.host-lost` (on host-changed to UNHEALTHY or GONE): every live pod on the host goes to ERROR, wanted
 * EXITED, with statusReason `HOST_UNHEALTHY: …` or `HOST_GONE: …`; its data stays, and a later start is a resume
 * that the scheduler refuses (naming the host's state) while the host cannot take it.
 */
export class HostLostCommand {
  @IsString()
  @IsNotEmpty()
  hostId: string;

  @IsIn(LOST_HOST_STATES)
  state: LostHostState;

  @IsOptional()
  @IsString()
  @MaxLength(1000)
  reason?: string | null;

  @IsOptional()
  @IsIn(HEALTH_CODES)
  healthCode?: HealthCode | null;

  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => HostPod)
  pods: HostPod[];
}

/**
 * `pod.cmd.host-notice` (on host-changed to DRAINING, and away from DRAINING to READY or CORDONED: the drain called
 * off): DRAINING sets on each live pod of a user on the host (not a serverless worker: the autoscaler replaces
 * those) the notice `HOST_DRAINING: …` and the time it is stopped at (`hostNotice`, `stopDeadline` on its views);
 * READY or CORDONED clears the notices of the host's pods.
 */
export class HostNoticeCommand {
  @IsString()
  @IsNotEmpty()
  hostId: string;

  @IsIn(HOST_STATES)
  state: HostState;

  @IsOptional()
  @IsString()
  @MaxLength(1000)
  reason?: string | null;

  /** While DRAINING: ISO time its users' pods are stopped. */
  @IsOptional()
  @IsISO8601({ strict: true })
  drainDeadline?: string | null;

  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => HostPod)
  pods: HostPod[];
}

/**
 * `pod.cmd.host-drained` (on `fleet.evt.drain-expired`): every live pod left on the host, workers included, is
 * stopped as a stop leaves it (EXITED, wanted EXITED, disk kept) with statusReason `HOST_DRAINED: …`.
 */
export class HostDrainedCommand {
  @IsString()
  @IsNotEmpty()
  hostId: string;

  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => HostPod)
  pods: HostPod[];
}

/** The answer to host-lost and host-drained: the pods moved. */
export interface HostPodsResult {
  podIds: string[];
}

/** The answer to host-notice: the pods given a notice, and those whose notice was cleared. */
export interface HostNoticeResult {
  noticed: string[];
  cleared: string[];
}
