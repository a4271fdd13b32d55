import { Type } from 'class-transformer';
import { IsIn, IsInt, IsNotEmpty, IsOptional, IsString, Max, Min } from 'class-validator';
import {
  HOST_SOURCES,
  HOST_STATES,
  type FleetActor,
  type HealthCode,
  type HealthSource,
  type HostSource,
  type HostState,
  type SchedulingState,
} from './fleet.contracts.js';

/** What the fleet's queries answer (docs/adr/0039-live-fleet.md). */
/** A host's health as its view shows it. */
export interface HostHealthView {
  healthy: boolean;
  code: HealthCode | null;
  reason: string | null;
  source: HealthSource | null;
  gpuIndex: number | null;
  /** When it last changed (null: never reported). */
  since: string | null;
}

export interface HostView {
  id: string;
  dataCenterId: string;
  gpuTypeId: string | null;
  gpuCount: number;
  allocatedGpus: number;
  cpuTypeId: string | null;
  cpuSlots: number;
  allocatedCpuSlots: number;
  publicIp: string;
  portRange: [number, number];
  source: HostSource;
  state: HostState;
  /** State READY: it takes new placements. */
  schedulable: boolean;
  /** The cordon, drain or removal: by whom, why, since when. */
  scheduling: { state: SchedulingState; by: FleetActor | 'file'; reason: string | null; since: string };
  health: HostHealthView;
  /** While DRAINING: when users' pods are stopped. */
  drainDeadline: string | null;
  /** While DRAINING: true once no pod holds anything on it (it may then be removed). */
  drained: boolean | null;
  /** Pods holding capacity on it (users' pods, serverless workers, cluster members). */
  pods: number;
}

export interface HostPodView {
  podId: string;
  ownerId: string;
  clusterId: string | null;
  gpuCount: number;
  priority: number;
  since: string;
}

export interface HostDetailView extends HostView {
  podsOnHost: HostPodView[];
}

export class GetHostQuery {
  @IsString()
  @IsNotEmpty()
  hostId: string;
}

/** `GET /v2/fleet/hosts`: filters, ordered by id, `after` the last id of the page before. */
export class ListHostsQuery {
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  dataCenterId?: string;

  @IsOptional()
  @IsString()
  @IsNotEmpty()
  gpuTypeId?: string;

  @IsOptional()
  @IsIn(HOST_STATES)
  state?: HostState;

  @IsOptional()
  @IsIn(HOST_SOURCES)
  source?: HostSource;

  @IsOptional()
  @IsString()
  after?: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1000)
  @Type(() => Number)
  limit?: number;
}

export interface HostListView {
  hosts: HostView[];
  /** The id to pass as `after` for the next page; null on the last. */
  next: string | null;
}

export class FleetCapacityQuery {}

/**
 * One data center and GPU type (or CPU type, with slots for GPUs). `total` counts the hosts not GONE;
 * `allocated` what pods hold; `free` what READY hosts could still place; `unavailable` the rest (free capacity on
 * hosts cordoned, draining or unhealthy): total = allocated + free + unavailable.
 */
export interface CapacityRow {
  dataCenterId: string;
  gpuTypeId: string | null;
  cpuTypeId: string | null;
  hosts: number;
  total: number;
  allocated: number;
  free: number;
  unavailable: number;
}

export interface FleetCapacityView {
  gpus: CapacityRow[];
  /** CPU hosts: CPU pod slots. */
  cpus: CapacityRow[];
  /** Hosts per shown state. */
  hosts: Record<HostState, number>;
}
