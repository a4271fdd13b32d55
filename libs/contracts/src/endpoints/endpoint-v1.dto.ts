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
import type { PodView } from '../pods/pod.dto.js';
import { PRIORITIES, type Priority } from '../quotas/priority.js';
import { IsEnvRecord } from '../common/string-record.js';
import type { TemplateView } from '../templates/template.dto.js';
import { ENDPOINT_MAX_WORKERS, SCALER_TYPES, type ScalerType } from './endpoint.contracts.js';

/** RunPod's v1 endpoint compute types served here: serverless workers run on GPU pools only. */
export const ENDPOINT_V1_COMPUTE_TYPES = ['GPU'] as const;

/** What a REST v1 endpoint create and update share (RunPod's v1 names), every field optional. */
export abstract class EndpointV1SettingsDto {
  @IsOptional()
  @IsIn(ENDPOINT_V1_COMPUTE_TYPES, { message: 'computeType must be GPU: CPU endpoints are not served here' })
  computeType?: (typeof ENDPOINT_V1_COMPUTE_TYPES)[number];

  /** GPUs per worker. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(8)
  gpuCount?: number;

  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(ENDPOINT_MAX_WORKERS)
  workersMin?: number;

  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(ENDPOINT_MAX_WORKERS)
  workersMax?: number;

  /** Seconds an idle worker stays up. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(86400)
  idleTimeout?: number;

  @IsOptional()
  @IsIn(SCALER_TYPES)
  scalerType?: ScalerType;

  /** QUEUE_DELAY: seconds the oldest job may wait; REQUEST_COUNT: requests per worker. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(3600)
  scalerValue?: number;

  @IsOptional()
  @IsBoolean()
  flashboot?: boolean;

  /** A network volume of the caller's; `null` removes it. */
  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  networkVolumeId?: string | null;

  /** `major.minor` versions the workers' hosts may have; empty means any. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(32)
  @Matches(/^\d+\.\d+$/, { each: true, message: 'each allowedCudaVersions entry must be like 12.1' })
  allowedCudaVersions?: string[];

  /** Extra environment of the workers. */
  @IsOptional()
  @IsEnvRecord(128)
  env?: Record<string, string>;

  /**
   * This project's extension: the workers' priority, `low`, `normal` (the default) or `high` against the account's
   * other workloads (docs/adr/0037-quotas-and-preemption.md). Workers are never interruptible.
   */
  @IsOptional()
  @IsIn(PRIORITIES)
  priority?: Priority;
}

/**
 * Body of `POST /v1/endpoints`. `gpuTypeIds` takes GPU pools (AMPERE_16 …) or GPU type ids of the catalog, each
 * standing for its pool, in order of preference. The workers' container comes from the serverless template.
 */
export class CreateEndpointV1Dto extends EndpointV1SettingsDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(191)
  name: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  templateId: string;

  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(32)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  gpuTypeIds: string[];
}

/** Body of `PATCH /v1/endpoints/{id}` (and `POST /v1/endpoints/{id}/update`): an absent field keeps its value. */
export class UpdateEndpointV1Dto extends EndpointV1SettingsDto {
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(191)
  name?: string;

  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  templateId?: string;

  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(32)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  gpuTypeIds?: string[];
}

/** A serverless endpoint as REST v1 shows it (RunPod's v1 names; the record GraphQL's `saveEndpoint` manages). */
export interface EndpointV1View {
  id: string;
  name: string;
  /** The owning user. */
  userId: string;
  templateId: string;
  computeType: 'GPU';
  /** The catalog's GPU types in the endpoint's pools, pool by pool in order of preference. */
  gpuTypeIds: string[];
  /** The pools themselves, comma-separated (GraphQL's `gpuIds`, which runpodctl reads). */
  gpuIds: string;
  gpuCount: number;
  /** Region codes the workers may run in, comma-separated; empty for any. */
  locations: string;
  networkVolumeId: string | null;
  idleTimeout: number;
  scalerType: ScalerType;
  scalerValue: number;
  workersMin: number;
  workersMax: number;
  flashboot: boolean;
  allowedCudaVersions: string[];
  /** Secret-looking values masked for a read-only key. */
  env: Record<string, string>;
  /** The workers' priority: `low`, `normal` or `high`. */
  priority: Priority;
  /** The workers' API key; null for a read-only key. */
  aiKey: string | null;
  /** Incremented by every update (1 when created). */
  version: number;
  createdAt: string;
  /** With `?includeTemplate=true`. */
  template?: TemplateView | null;
  /** With `?includeWorkers=true`: the endpoint's worker pods. */
  workers?: PodView[];
}
