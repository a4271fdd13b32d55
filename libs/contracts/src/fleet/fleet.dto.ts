import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

/**
 * The bodies of the operators' fleet routes (`/v2/fleet/hosts/{hostId}/...`, docs/api.md "Fleet"): what the
 * gateway turns into `fleet.cmd.*` with the host from the path and `by: operator`.
 */

export const GPU_FAULT_KINDS = ['XID', 'ECC'] as const;
export type GpuFaultKind = (typeof GPU_FAULT_KINDS)[number];

/** `POST /v2/fleet/hosts/{hostId}/cordon`. */
export class CordonHostInput {
  /** Why, for the other operators and the host's view. */
  @IsOptional()
  @IsString()
  @MaxLength(500)
  reason?: string;
}

/** `POST /v2/fleet/hosts/{hostId}/drain`. */
export class DrainHostInput {
  @IsOptional()
  @IsString()
  @MaxLength(500)
  reason?: string;

  /** Seconds until users' pods on it are stopped; absent: the scheduler's `FLEET_DRAIN_DEADLINE_S`. */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(7 * 24 * 3600)
  @Type(() => Number)
  deadlineSeconds?: number;
}

/** `POST /v2/fleet/hosts/{hostId}/health`: an operator's report; unhealthy is recorded with code `OPERATOR`. */
export class HostHealthInput {
  @IsBoolean()
  healthy: boolean;

  /** A sentence: what is wrong (or what was fixed). */
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  reason?: string;

  /** The GPU at fault, when one is. */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(63)
  @Type(() => Number)
  gpuIndex?: number;
}

/** `POST /v2/fleet/hosts/{hostId}/gpu-faults`: make a GPU of a simulated or local host fail (tests, demos). */
export class GpuFaultInput {
  @IsIn(GPU_FAULT_KINDS)
  kind: GpuFaultKind;

  /** The GPU that fails. */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(63)
  @Type(() => Number)
  gpuIndex?: number;

  /** For XID: the Xid number; absent: 79 (fallen off the bus). */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(999)
  @Type(() => Number)
  xid?: number;
}
