import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { GPU_TIERS, type GpuTier } from '../catalog/catalog.contracts.js';
import { IsEnvRecord } from '../common/string-record.js';
import { PRIORITIES, type Priority } from '../quotas/priority.js';
import { ENDPOINT_MAX_WORKERS, SCALER_TYPES, type ScalerType } from './endpoint.contracts.js';
import {
  ContainerArgs,
  ContainerDisk,
  ContainerImage,
  ContainerPorts,
} from '../common/container-settings.dto.js';

/** RunPod's v2 routing types: QUEUE is our QB, LOAD_BALANCER our LB. */
export const ENDPOINT_V2_TYPES = ['QUEUE', 'LOAD_BALANCER'] as const;
export type EndpointV2Type = (typeof ENDPOINT_V2_TYPES)[number];

/** FlashBoot modes served here (RunPod's PRIORITY_FLASHBOOT has no counterpart). */
export const FLASHBOOT_MODES = ['OFF', 'FLASHBOOT'] as const;
export type FlashbootMode = (typeof FLASHBOOT_MODES)[number];

/** `gpu` of a v2 serverless body: the GPU pools (our GPU tiers) in order of preference, GPUs per worker. */
export class EndpointGpuV2Dto {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(GPU_TIERS.length)
  @IsIn(GPU_TIERS, { each: true })
  pools: GpuTier[];

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(8)
  count?: number;

  /** `major.minor` versions the workers' hosts may have; empty or absent means any. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(32)
  @Matches(/^\d+\.\d+$/, { each: true, message: 'each allowedCudaVersions entry must be like 12.1' })
  allowedCudaVersions?: string[];
  /**
   * RunPod's GPU types subtracted from the pools. Only `[]` (the whole pools) is served: workers run on any type
   * of their pools here. The MCP server's `set-endpoint-gpus` always sends the field, `[]` when it pins nothing.
   */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(0, {
    message:
      'gpu.excludedTypes is not served: workers run on every GPU type of their pools (send [] or omit it)',
  })
  excludedTypes?: string[];
}

export class EndpointWorkersV2Dto {
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(ENDPOINT_MAX_WORKERS)
  min?: number;

  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(ENDPOINT_MAX_WORKERS)
  max?: number;

  /** Seconds an idle worker stays up. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(86400)
  idleTimeout?: number;
}

/** `{type: QUEUE_DELAY, queueDelay}` or `{type: REQUEST_COUNT, requestCount}` (the other value → 422). */
export class EndpointScalingV2Dto {
  @IsIn(SCALER_TYPES)
  type: ScalerType;

  /** Seconds the oldest job may wait. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(3600)
  queueDelay?: number;

  /** Requests per worker. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(3600)
  requestCount?: number;
}

/** What a v2 serverless create and update share, every field optional. */
export abstract class EndpointV2SettingsDto {
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => EndpointWorkersV2Dto)
  workers?: EndpointWorkersV2Dto;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => EndpointScalingV2Dto)
  scaling?: EndpointScalingV2Dto;

  @IsOptional()
  @IsIn(FLASHBOOT_MODES)
  flashboot?: FlashbootMode;

  /** At most one network volume; `[]` removes it. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(1)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  networkVolumes?: string[];

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
 * Body of `POST /v2/serverless`: `name`, `type` and `gpu` required, and the workers' container either from a
 * serverless template (`templateId`) or from `image` (with `args`, `disk`, `ports`, `registry`), for which the
 * gateway makes the endpoint its own serverless template. Neither or both: 422 (toTemplateFromImageV2).
 */
export class CreateEndpointV2Dto extends EndpointV2SettingsDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(191)
  name: string;

  @IsIn(ENDPOINT_V2_TYPES)
  type: EndpointV2Type;

  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  templateId?: string;

  @ContainerImage()
  image?: string;

  /** Arguments passed to the container entrypoint (with `image`). */
  @ContainerArgs()
  args?: string;

  /** Container disk in GB (with `image`). */
  @ContainerDisk()
  disk?: number;

  /** Exposed ports, `<port>/http` or `<port>/tcp` (with `image`). */
  @ContainerPorts()
  ports?: string[];

  /** A container registry credential id (`/v2/registries`) that pulls a private `image`. */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(256)
  registry?: string;

  @IsObject()
  @ValidateNested()
  @Type(() => EndpointGpuV2Dto)
  gpu: EndpointGpuV2Dto;
}

/** Body of `PATCH /v2/serverless/{id}`: any field of the create body; an absent one keeps its value. */
export class UpdateEndpointV2Dto extends EndpointV2SettingsDto {
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(191)
  name?: string;

  @IsOptional()
  @IsIn(ENDPOINT_V2_TYPES)
  type?: EndpointV2Type;

  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  templateId?: string;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => EndpointGpuV2Dto)
  gpu?: EndpointGpuV2Dto;
}

/** A serverless endpoint as the management API v2 shows it (the record GraphQL's `saveEndpoint` manages). */
export interface EndpointV2View {
  id: string;
  name: string;
  type: EndpointV2Type;
  templateId: string;
  gpu: { pools: string[]; count: number; allowedCudaVersions: string[] };
  workers: { min: number; max: number; idleTimeout: number };
  scaling: { type: 'QUEUE_DELAY'; queueDelay: number } | { type: 'REQUEST_COUNT'; requestCount: number };
  flashboot: FlashbootMode;
  networkVolumes: string[];
  /** Secret-looking values masked for a read-only key. */
  env: Record<string, string>;
  /** The workers' priority: `low`, `normal` or `high`. */
  priority: Priority;
  /** The workers' API key; null for a read-only key. */
  aiKey: string | null;
  /** Incremented by every update (1 when created). */
  version: number;
  createdAt: string;
}

/** `GET /v2/serverless`. */
export interface EndpointV2List {
  endpoints: EndpointV2View[];
}
