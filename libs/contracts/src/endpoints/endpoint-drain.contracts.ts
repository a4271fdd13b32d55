import { ArrayMaxSize, IsArray, IsIn, IsISO8601, IsNotEmpty, IsOptional, IsString } from 'class-validator';
import { HOST_STATES, type HostState } from '../fleet/fleet.contracts.js';

/**
 * `endpoint.cmd.drain-workers`: the autoscaler's reaction to `fleet.evt.host-changed` (recorded, an id derived from
 * the event, its time; none in REPLAY_MODE). DRAINING marks the pods named (the host's pods that are no cluster
 * member: any worker among them) as draining: the control loop replaces those that are workers on other hosts
 * first, then terminates them. Any other state takes the host's marks away (the drain called off, or the host lost:
 * its workers then fail and are replaced as failed workers).
 */
export class DrainWorkersCommand {
  @IsString()
  @IsNotEmpty()
  hostId: string;

  @IsIn(HOST_STATES)
  state: HostState;

  /** While DRAINING: ISO time the scheduler stops what is left on the host. */
  @IsOptional()
  @IsISO8601({ strict: true })
  drainDeadline?: string | null;

  @IsArray()
  @ArrayMaxSize(10_000)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  podIds: string[];
}

/** The pods now marked draining on the host, and those whose mark went. */
export interface DrainWorkersResult {
  marked: string[];
  unmarked: string[];
}
