import { Type } from 'class-transformer';
import type { UsageRates } from '../usage/usage.contracts.js';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsISO8601,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Min,
} from 'class-validator';
import { VOCABULARIES, type Vocabulary } from '../errors/pod-field-names.js';
import { PRIORITIES, type Priority } from '../quotas/priority.js';

/** A port as the interface writes it: `8888/http` or `22/tcp`. */
export const PORT_SPEC = /^([1-9]\d{0,4})\/(http|tcp)$/;

/**
 * Reserve capacity for one pod (owner: cluster-scheduler). Used by pod-lifecycle for standalone pods and to
 * resume a stopped pod on its host (`hostId` set: that host only, or CAPACITY_UNAVAILABLE). Idempotent per pod:
 * reserving a pod that holds a reservation returns that reservation.
 */
export class ReservePodCommand {
  @IsString()
  podId: string;

  @IsString()
  ownerId: string;

  /** GPU type id from the catalog; absent for a CPU pod. */
  @IsOptional()
  @IsString()
  gpuTypeId?: string;

  @IsInt()
  @Min(0)
  @Type(() => Number)
  gpuCount: number;

  /** CPU type id from the catalog, for CPU pods. */
  @IsOptional()
  @IsString()
  cpuTypeId?: string;

  /** Preferred data centers in order; empty means any. */
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  dataCenterIds?: string[];

  /** Region codes (CZ, FR, GB, NO, RO, US) allowed; empty means any. */
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  regions?: string[];

  /** Pin to this host (resume after stop). */
  @IsOptional()
  @IsString()
  hostId?: string;

  /** A network volume to mount: fixes the data center to the volume's. */
  @IsOptional()
  @IsString()
  networkVolumeId?: string;

  /** Ports to map to public ports on the host. */
  @IsArray()
  @ArrayMaxSize(32)
  @Matches(PORT_SPEC, { each: true, message: 'each port must be <number>/http or <number>/tcp' })
  ports: string[];

  /**
   * The pod's exposed ports changed (an edit): a pod that holds a reservation keeps its host and GPUs and gets
   * public ports for `ports` anew, instead of its reservation back unchanged. A pod without one is placed as usual.
   */
  @IsOptional()
  @IsBoolean()
  reassignPorts?: boolean;

  /** The workload's priority (default normal): it may preempt its own team's lower-priority holders. */
  @IsOptional()
  @IsIn(PRIORITIES)
  priority?: Priority;

  /** Preemptible at any priority (an interruptible, or spot, pod). */
  @IsOptional()
  @IsBoolean()
  interruptible?: boolean;

  /** The surface of the pod request this placement serves: its refusals name that surface's fields. */
  @IsOptional()
  @IsIn(VOCABULARIES)
  vocabulary?: Vocabulary;
}

export class ReleasePodCommand {
  @IsString()
  podId: string;

  /**
   * Only a reservation made at or before this time goes (ISO): the scheduler's release after a pod's EXITED or
   * TERMINATED status, which must keep a newer reservation made to resume the pod.
   */
  @IsOptional()
  @IsISO8601({ strict: true })
  notAfter?: string;
}

/** Where a pod landed: the host, its data center and address, and the public port of every exposed port. */
export interface PlacementView {
  podId: string;
  hostId: string;
  dataCenterId: string;
  publicIp: string;
  gpuTypeId: string | null;
  gpuCount: number;
  /** `22/tcp` → public port on the host. */
  portMappings: Record<string, number>;
  /** The catalog's prices for what was reserved (absent from outcomes recorded before prices existed). */
  rates?: UsageRates;
}
