import { Field, InputType, Int } from '@nestjs/graphql';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsEnum,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import {
  ENDPOINT_MAX_WORKERS,
  ENDPOINT_TYPES,
  ENV_NAME,
  PRIORITIES,
  SCALER_TYPES,
  type Priority,
} from '@app/contracts';
import { FlashBootType } from '../models/flash-boot-type.enum.js';

@InputType('EnvironmentVariableInput')
export class EnvironmentVariableInput {
  @Field(() => String)
  @Matches(ENV_NAME, { message: 'env key must be an environment variable name' })
  key: string;

  @Field(() => String)
  @IsString()
  @MaxLength(32 * 1024)
  value: string;
}

/**
 * `saveEndpoint(input: {...})`: creates without `id`, modifies with it. Empty strings for `networkVolumeId` and
 * `locations` mean none / any (the Python SDK sends them). String-typed fields (`type`, `scalerType`) are quoted
 * by clients; `flashBootType` is an enum, unquoted.
 */
@InputType('EndpointInput')
export class EndpointInput {
  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  id?: string | null;

  @Field(() => String)
  @IsString()
  @IsNotEmpty()
  @MaxLength(191)
  name: string;

  /** One GPU tier, or several comma-separated in order of preference. */
  @Field(() => String)
  @IsString()
  @IsNotEmpty()
  @MaxLength(256)
  gpuIds: string;

  @Field(() => String)
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  templateId: string;

  @Field(() => String, { nullable: true, description: 'QB (default) or LB' })
  @IsOptional()
  @IsIn(ENDPOINT_TYPES)
  type?: string | null;

  @Field(() => Int, { nullable: true })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(86400)
  idleTimeout?: number | null;

  @Field(() => String, {
    nullable: true,
    description: 'CZ, FR, GB, NO, RO or US (comma-separated); empty for any',
  })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  locations?: string | null;

  @Field(() => FlashBootType, { nullable: true })
  @IsOptional()
  @IsEnum(FlashBootType)
  flashBootType?: FlashBootType | null;

  @Field(() => String, { nullable: true, description: 'QUEUE_DELAY (default) or REQUEST_COUNT' })
  @IsOptional()
  @IsIn(SCALER_TYPES)
  scalerType?: string | null;

  @Field(() => Int, { nullable: true })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(3600)
  scalerValue?: number | null;

  @Field(() => Int, { nullable: true })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(ENDPOINT_MAX_WORKERS)
  workersMin?: number | null;

  @Field(() => Int, { nullable: true })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(ENDPOINT_MAX_WORKERS)
  workersMax?: number | null;

  @Field(() => String, { nullable: true, description: 'empty or null for none' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  networkVolumeId?: string | null;

  @Field(() => Int, { nullable: true })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(8)
  gpuCount?: number | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  allowedCudaVersions?: string | null;

  @Field(() => [EnvironmentVariableInput], { nullable: true })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(128)
  @ValidateNested({ each: true })
  @Type(() => EnvironmentVariableInput)
  env?: EnvironmentVariableInput[] | null;

  /** This project's extension (docs/adr/0037-quotas-and-preemption.md); workers are never interruptible. */
  @Field(() => String, {
    nullable: true,
    description:
      "The workers' priority: low, normal (the default) or high, against the account's other workloads",
  })
  @IsOptional()
  @IsIn(PRIORITIES)
  priority?: Priority | null;
}

/** `updateEndpointTemplate(input: {templateId, endpointId})`: the endpoint's workers run another template. */
@InputType('UpdateEndpointTemplateInput')
export class UpdateEndpointTemplateInput {
  @Field(() => String)
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  templateId: string;

  @Field(() => String)
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  endpointId: string;
}
