import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsIP,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { CordonHostInput, DrainHostInput, GpuFaultInput } from './fleet.dto.js';

/**
 * The fleet as live state (docs/adr/0039-live-fleet.md), owned by the cluster scheduler. A host's shown `state` is
 * the first that holds of GONE (removed), UNHEALTHY (its health), DRAINING, CORDONED (an operator's or
 * Kubernetes' cordon), READY. Only a READY host takes new placements.
 */
export const HOST_STATES = ['READY', 'CORDONED', 'DRAINING', 'UNHEALTHY', 'GONE'] as const;
export type HostState = (typeof HOST_STATES)[number];

/** The scheduling half of the state, set by cordon, uncordon, drain and remove. */
export const SCHEDULING_STATES = ['READY', 'CORDONED', 'DRAINING', 'GONE'] as const;
export type SchedulingState = (typeof SCHEDULING_STATES)[number];

/** Who registered the host: the fleet file's seed, the API (local, simulated and non-Kubernetes fleets), a node. */
export const HOST_SOURCES = ['file', 'api', 'kubernetes'] as const;
export type HostSource = (typeof HOST_SOURCES)[number];

/**
 * Who changed a host: an operator, or the Kubernetes node watch. A cordon Kubernetes set is lifted by Kubernetes or
 * an operator; an operator's cordon is never lifted by the node watch.
 */
export const FLEET_ACTORS = ['operator', 'kubernetes'] as const;
export type FleetActor = (typeof FLEET_ACTORS)[number];

/** Who reported a host's health: the runtime driver (node conditions, simulated faults), an operator, start failures. */
export const HEALTH_SOURCES = ['runtime', 'operator', 'start-failures'] as const;
export type HealthSource = (typeof HEALTH_SOURCES)[number];

/**
 * Why a host is unhealthy: an Xid error, an uncorrectable ECC error, a GPU the device plugin or the GPU operator
 * reports unhealthy, a Kubernetes node NotReady, repeated start failures of pods on it, an operator's report.
 */
export const HEALTH_CODES = [
  'XID',
  'ECC',
  'GPU_UNHEALTHY',
  'NODE_NOT_READY',
  'START_FAILURES',
  'OPERATOR',
] as const;
export type HealthCode = (typeof HEALTH_CODES)[number];

/** A host id: lower-case letters, digits, dots and dashes (a Kubernetes node name fits). */
export const HOST_ID = /^[a-z0-9][a-z0-9.-]{0,252}$/;

/** The body of `POST /v2/fleet/hosts`: a host as `fleet.cmd.register` takes it, without `source` (the API's). */
export class RegisterHostInput {
  @IsString()
  @Matches(HOST_ID, { message: 'id must be lower-case letters, digits, dots and dashes (at most 253)' })
  id: string;

  @IsString()
  @IsNotEmpty()
  dataCenterId: string;

  /** Absent or null: a CPU host. */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  gpuTypeId?: string | null;

  @IsInt()
  @Min(0)
  @Max(64)
  @Type(() => Number)
  gpuCount: number;

  @IsOptional()
  @IsString()
  @IsNotEmpty()
  cpuTypeId?: string | null;

  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(1024)
  @Type(() => Number)
  cpuSlots?: number;

  @IsIP(4)
  publicIp: string;

  /** `[first, last]` public port, inclusive; absent: 20000–20999. */
  @IsOptional()
  @IsArray()
  @ArrayMinSize(2)
  @ArrayMaxSize(2)
  @IsInt({ each: true })
  @Min(1, { each: true })
  @Max(65535, { each: true })
  portRange?: [number, number];
}

/**
 * `fleet.cmd.register` (operators through `POST /v2/fleet/hosts`, and the Kubernetes node watch): adds a host
 * (READY), or updates an existing one's capacity; a GONE host registered again comes back READY. Refused
 * (INVALID_STATE) when it would leave fewer GPUs, CPU slots or ports than its pods hold, and (CONFLICT) when it
 * would move a host that holds pods to another data center. Unknown data center, GPU or CPU type: BAD_REQUEST.
 */
export class RegisterHostCommand extends RegisterHostInput {
  /** Absent: `api`. The file's hosts are seeded at boot, not registered. */
  @IsOptional()
  @IsIn(['api', 'kubernetes'])
  source?: Exclude<HostSource, 'file'>;
}

export interface RegisterHostResult {
  hostId: string;
  /** False when the host existed (its capacity was updated, or nothing changed). */
  created: boolean;
  state: HostState;
}

class HostCommand {
  @IsString()
  @IsNotEmpty()
  hostId: string;

  /** Absent: `operator`. */
  @IsOptional()
  @IsIn(FLEET_ACTORS)
  by?: FleetActor;
}

/** `fleet.cmd.cordon`: no new placements on the host; what runs there stays. From DRAINING: stops the drain. */
export class CordonHostCommand extends CordonHostInput {
  @IsString()
  @IsNotEmpty()
  hostId: string;

  /** Absent: `operator`. */
  @IsOptional()
  @IsIn(FLEET_ACTORS)
  by?: FleetActor;
}

/** `fleet.cmd.uncordon`: back to READY from CORDONED or DRAINING (a drain is called off). */
export class UncordonHostCommand extends HostCommand {}

/**
 * `fleet.cmd.drain`: no new placements; the autoscaler replaces the host's serverless workers elsewhere, then stops
 * them; users' pods are told (reason HOST_DRAINING, with the deadline) and stopped at the deadline (HOST_DRAINED).
 */
export class DrainHostCommand extends DrainHostInput {
  @IsString()
  @IsNotEmpty()
  hostId: string;

  @IsOptional()
  @IsIn(FLEET_ACTORS)
  by?: FleetActor;
}

/**
 * `fleet.cmd.remove`: the host goes GONE. An operator may remove only a host that holds no pods (drained first);
 * the node watch removes a deleted node whatever it held: its pods are lost (HOST_GONE).
 */
export class RemoveHostCommand extends HostCommand {}

/** `fleet.cmd.report-health`: a host (or one of its GPUs) is unhealthy, or healthy again. */
export class ReportHostHealthCommand {
  @IsString()
  @IsNotEmpty()
  hostId: string;

  @IsBoolean()
  healthy: boolean;

  @IsIn(HEALTH_SOURCES)
  source: HealthSource;

  /** Required when unhealthy. */
  @IsOptional()
  @IsIn(HEALTH_CODES)
  code?: HealthCode;

  /** A human sentence: `Xid 79 on GPU 3 (GPU has fallen off the bus)`. */
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  reason?: string;

  /** The GPU at fault, when one is named. */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(63)
  gpuIndex?: number;
}

/** `fleet.cmd.expire-drains`: the scheduler's leader, when a drain deadline passed; dated by the command. */
export class ExpireDrainsCommand {}

/** What cordon, uncordon, drain, remove and report-health answer: what they decided (the view follows). */
export interface HostChangeResult {
  hostId: string;
  state: HostState;
  /** False for a no-op (cordoning a cordoned host, say). */
  changed: boolean;
}

export interface ExpireDrainsResult {
  hostIds: string[];
}

/**
 * `pod.cmd.inject-gpu-fault` (owner: pod-lifecycle, whose runtime driver reports it; operators through
 * `POST /v2/fleet/hosts/{id}/gpu-faults`): the simulated and local drivers make a GPU of the host fail, for tests
 * and demos; the driver reports it as `fleet.cmd.report-health` (source `runtime`). Other drivers: NOT_AVAILABLE.
 */
export class InjectGpuFaultCommand extends GpuFaultInput {
  @IsString()
  @IsNotEmpty()
  hostId: string;
}
