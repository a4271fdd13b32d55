import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { GPU_TIERS, REGION_CODES, type GpuTier, type RegionCode } from '../catalog/catalog.contracts.js';
import { deriveId } from '../common/ids.js';
import { VOCABULARIES, type Vocabulary } from '../errors/pod-field-names.js';
import { PRIORITIES, type Priority } from '../quotas/priority.js';
import { IsEnvRecord } from '../common/string-record.js';
import type { WaitReason } from '../common/wait-reason.js';
import type { EndpointThrottle } from './endpoint-throttle.js';

export const ENDPOINT_TYPES = ['QB', 'LB'] as const;
export type EndpointType = (typeof ENDPOINT_TYPES)[number];

export const SCALER_TYPES = ['QUEUE_DELAY', 'REQUEST_COUNT'] as const;
export type ScalerType = (typeof SCALER_TYPES)[number];

/** The most workers one endpoint may ask for (`workersMax`); a deployment may cap it lower. */
export const ENDPOINT_MAX_WORKERS = 100;

/** What an omitted field of a new endpoint becomes (the public API's defaults, compatibility.md §3). */
export const ENDPOINT_DEFAULTS = {
  type: 'QB',
  idleTimeout: 5,
  scalerType: 'QUEUE_DELAY',
  scalerValue: 4,
  gpuCount: 1,
  workersMin: 0,
  workersMax: 3,
  flashBoot: false,
} as const satisfies Record<string, string | number | boolean>;

/**
 * The id of the endpoint a create command makes: derived from the command id, so the gateway (which chooses the
 * command id) knows it before the command runs (to bind the workers' API key to it) and a replay rebuilds it.
 */
export function newEndpointId(commandId: string): string {
  return deriveId(commandId, 'endpoint', 14);
}

/** One serverless endpoint (owner: endpoint-autoscaler). 403 for another user's, 404 for an unknown id. */
export class GetEndpointQuery {
  @IsString()
  @IsNotEmpty()
  id: string;
}

/** The acting user's endpoints, oldest first. */
export class ListEndpointsQuery {}

/**
 * `endpoint.cmd.save`: create (no `id`) or modify (`id` of one of the actor's endpoints). On create, an omitted
 * optional field takes its `ENDPOINT_DEFAULTS` value; on modify, an omitted field keeps its current value.
 * Cross-app checks (the template is the caller's and serverless, the network volume exists in an allowed
 * location) are the gateway's, before the command, so the command's outcome depends only on this app's state.
 */
export class SaveEndpointCommand {
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  id?: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(191)
  name: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  templateId: string;

  /** GPU tiers in order of preference. */
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(GPU_TIERS.length)
  @IsIn(GPU_TIERS, { each: true })
  gpuIds: GpuTier[];

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(8)
  @Type(() => Number)
  gpuCount?: number;

  /** Allowed region codes; empty means any. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(REGION_CODES.length)
  @IsIn(REGION_CODES, { each: true })
  locations?: RegionCode[];

  @IsOptional()
  @IsIn(ENDPOINT_TYPES)
  type?: EndpointType;

  /** Seconds a worker may stay idle before it is stopped. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(86400)
  @Type(() => Number)
  idleTimeout?: number;

  @IsOptional()
  @IsIn(SCALER_TYPES)
  scalerType?: ScalerType;

  /** QUEUE_DELAY: seconds the oldest job may wait; REQUEST_COUNT: requests per worker. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(3600)
  @Type(() => Number)
  scalerValue?: number;

  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(ENDPOINT_MAX_WORKERS)
  @Type(() => Number)
  workersMin?: number;

  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(ENDPOINT_MAX_WORKERS)
  @Type(() => Number)
  workersMax?: number;

  @IsOptional()
  @IsBoolean()
  flashBoot?: boolean;

  /** `null` removes the volume; absent keeps it (modify) or means none (create). */
  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsString()
  @IsNotEmpty()
  networkVolumeId?: string | null;

  /** Comma-separated CUDA versions the workers' hosts may have (`12.1,12.2`); empty means any. */
  @IsOptional()
  @IsString()
  @MaxLength(256)
  @Matches(/^$|^\d+\.\d+(\s*,\s*\d+\.\d+)*$/, { message: 'allowedCudaVersions must be like "12.1,12.2"' })
  allowedCudaVersions?: string;

  /** Extra environment of the workers (the template's env, then this, then the platform's worker variables). */
  @IsOptional()
  @IsEnvRecord(128)
  env?: Record<string, string>;

  /**
   * The priority of the endpoint's worker pods against the owner's other workloads (default normal); workers are
   * never interruptible.
   */
  @IsOptional()
  @IsIn(PRIORITIES)
  priority?: Priority;

  /**
   * The workers' API key (RUNPOD_AI_API_KEY), sealed by the gateway's SecretBox with associated data = the
   * endpoint id. Required on create; ignored on modify (the key is bound to the endpoint for its lifetime).
   */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  aiKeySealed?: string;
}

/** `endpoint.cmd.delete`: refused (INVALID_STATE) unless workersMin and workersMax are both 0. */
export class DeleteEndpointCommand {
  @IsString()
  @IsNotEmpty()
  id: string;

  /** The surface the request came from, whose names its refusal uses; absent: graphql (the first to have it). */
  @IsOptional()
  @IsIn(VOCABULARIES)
  vocabulary?: Vocabulary;
}

/**
 * Why an endpoint whose workers may run is not deleted, with the request that fixes it, in the names of the
 * surface that asked (its workers' bounds and the call that sets both to 0).
 */
export function endpointDeleteRefusal(
  endpoint: { id: string; workersMin: number; workersMax: number },
  vocabulary: Vocabulary = 'graphql',
): string {
  const { id, workersMin: min, workersMax: max } = endpoint;
  switch (vocabulary) {
    case 'v2':
      return (
        `endpoint ${id} has workers.min ${min} and workers.max ${max}: set both to 0 ` +
        `with PATCH /v2/serverless/${id} {"workers": {"min": 0, "max": 0}} before deleting it`
      );
    case 'v1':
      return (
        `endpoint ${id} has workersMin ${min} and workersMax ${max}: set both to 0 ` +
        `with PATCH /v1/endpoints/${id} {"workersMin": 0, "workersMax": 0} before deleting it`
      );
    case 'graphql':
      return `endpoint ${id} has workersMin ${min} and workersMax ${max}: set both to 0 with saveEndpoint before deleting it`;
  }
}

/**
 * `endpoint.cmd.remove`: removes the record of an endpoint deleted earlier (`endpoint.cmd.delete`), issued by the
 * autoscaler's control loop once the endpoint's workers are gone and its queue purged. A command rather than the
 * loop's own write, so a replay of the recorded commands removes it too.
 */
export class RemoveEndpointCommand {
  @IsString()
  @IsNotEmpty()
  id: string;
}

/** A serverless endpoint's saved configuration, as other apps need it. */
export interface EndpointView {
  id: string;
  ownerId: string;
  name: string;
  type: EndpointType;
  templateId: string;
  /** GPU tiers in order of preference (AMPERE_16 … ADA_80_PRO). */
  gpuIds: string[];
  gpuCount: number;
  /** Region codes allowed (CZ, FR, GB, NO, RO, US); empty means any. */
  locations: string[];
  idleTimeout: number;
  scalerType: 'QUEUE_DELAY' | 'REQUEST_COUNT';
  scalerValue: number;
  workersMin: number;
  workersMax: number;
  flashBoot: boolean;
  networkVolumeId: string | null;
  createdAt: string;
  /** Comma-separated CUDA versions, empty for any. */
  allowedCudaVersions?: string;
  /** Extra worker environment. */
  env?: Record<string, string>;
  /** Its worker pods' priority; absent from the views of earlier versions (normal). */
  priority?: Priority;
  /** Incremented by every modify (1 when created). */
  version?: number;
  /** The workers' API key, sealed (gateway's SecretBox, associated data = the endpoint id). */
  aiKeySealed?: string;
  /** The endpoint's worker pods (not yet terminated), with what the autoscaler wants of each. */
  workers?: EndpointWorkerView[];
  /** Why its workers are held back now (`endpoint.qry.get` only; absent when they are not): /health shows it. */
  throttled?: EndpointThrottle;
  /**
   * Why its jobs wait now, as the autoscaler's control loop last judged it (`endpoint.qry.get` only; null when
   * nothing holds them): the gateway's /health and the status of its IN_QUEUE jobs show it.
   */
  waitReason?: WaitReason | null;
}

/** One worker pod of an endpoint as the autoscaler sees it. */
export interface EndpointWorkerView {
  podId: string;
  /** RUNNING while the autoscaler wants it up, EXITED once it stopped it (FLASHBOOT keeps stopped workers). */
  desiredStatus: 'RUNNING' | 'EXITED' | 'TERMINATED';
  /** The pod's last status seen by the autoscaler (a PodStatus), null before its first look. */
  status: string | null;
}

/** Emitted when an endpoint is deleted: its queue can go (its workers are terminated by the autoscaler). */
export interface EndpointDeletedEvent {
  id: string;
  ownerId: string;
}

/** Emitted when an endpoint is created or modified. */
export interface EndpointSavedEvent {
  endpoint: EndpointView;
  created: boolean;
}
