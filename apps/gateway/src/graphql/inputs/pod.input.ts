import { Field, Float, InputType, Int, registerEnumType } from '@nestjs/graphql';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsNumber,
  IsOptional,
  IsPositive,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { MAX_POD_VOLUME_GB, PRIORITIES, type Priority } from '@app/contracts';
import { EnvironmentVariableInput } from './endpoint.input.js';

/** RunPod's cloud choice; every pod here is on the operator's own fleet, so it does not change placement. */
export enum CloudType {
  ALL = 'ALL',
  SECURE = 'SECURE',
  COMMUNITY = 'COMMUNITY',
}
registerEnumType(CloudType, { name: 'CloudTypeEnum' });

/** What `podFindAndDeployOnDemand` and `deployCpuPod` share (the Python SDK's `create_pod`). */
@InputType({ isAbstract: true })
class PodDeployInput {
  @Field(() => String)
  @IsString()
  @IsNotEmpty()
  @MaxLength(191)
  name: string;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(512)
  imageName?: string | null;

  @Field(() => CloudType, { nullable: true })
  @IsOptional()
  cloudType?: CloudType | null;

  @Field(() => Boolean, { nullable: true })
  @IsOptional()
  @IsBoolean()
  startSsh?: boolean | null;

  /** Every pod with a mapped port gets the host's public address: accepted, nothing to choose. */
  @Field(() => Boolean, { nullable: true })
  @IsOptional()
  @IsBoolean()
  supportPublicIp?: boolean | null;

  /** The pod's volume disk, GB, at `volumeMountPath` (default /workspace); 0 or absent for none. */
  @Field(() => Int, { nullable: true })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_POD_VOLUME_GB)
  volumeInGb?: number | null;

  @Field(() => Int, { nullable: true })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(4096)
  containerDiskInGb?: number | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(4096)
  dockerArgs?: string | null;

  /** `8888/http,22/tcp`. */
  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  ports?: string | null;

  /** Where the network volume mounts (ignored without `networkVolumeId`; the SDK always sends one). */
  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(512)
  volumeMountPath?: string | null;

  @Field(() => [EnvironmentVariableInput], { nullable: true })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(256)
  @ValidateNested({ each: true })
  @Type(() => EnvironmentVariableInput)
  env?: EnvironmentVariableInput[] | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  dataCenterId?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  templateId?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  networkVolumeId?: string | null;

  /** Host-size filters of RunPod's marketplace; a host here is a fleet entry, so they are accepted and not used. */
  @Field(() => Int, { nullable: true })
  @IsOptional()
  @IsInt()
  minVcpuCount?: number | null;

  @Field(() => Int, { nullable: true })
  @IsOptional()
  @IsInt()
  minMemoryInGb?: number | null;

  /** This project's extension (docs/adr/0037-quotas-and-preemption.md). */
  @Field(() => String, {
    nullable: true,
    description: "low, normal (the default) or high, against the account's other workloads",
  })
  @IsOptional()
  @IsIn(PRIORITIES)
  priority?: Priority | null;
}

@InputType('PodFindAndDeployOnDemandInput')
export class PodFindAndDeployOnDemandInput extends PodDeployInput {
  @Field(() => String)
  @IsString()
  @IsNotEmpty()
  @MaxLength(191)
  gpuTypeId: string;

  @Field(() => Int, { nullable: true })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(16)
  gpuCount?: number | null;
}

/**
 * `podRentInterruptable`: RunPod's spot pod, the on-demand input plus a bid. The pod is interruptible (preemptible
 * at any priority, ADR 37); there is no spot market here, so the bid is checked and otherwise ignored.
 */
@InputType('PodRentInterruptableInput')
export class PodRentInterruptableInput extends PodFindAndDeployOnDemandInput {
  @Field(() => Float, {
    description: 'Checked (above 0) and otherwise ignored: this deployment has no spot market',
  })
  @IsNumber()
  @IsPositive()
  bidPerGpu: number;
}

@InputType('DeployCpuPodInput')
export class DeployCpuPodInput extends PodDeployInput {
  /**
   * A CPU type of the catalog (`cpu3c`) or RunPod's instance id of one (`cpu3c-2-4`: type, vCPUs, memory GB);
   * absent (the Python SDK's default), any CPU type the scheduler finds free.
   */
  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(191)
  instanceId?: string | null;
}

@InputType('PodFilter')
export class PodRefInput {
  @Field(() => String)
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  podId: string;
}

@InputType('PodResumeInput')
export class PodResumeInput extends PodRefInput {
  /** A pod resumes with the GPUs it was created with: another count is refused. */
  @Field(() => Int, { nullable: true })
  @IsOptional()
  @IsInt()
  @Min(0)
  gpuCount?: number | null;
}

@InputType('GpuTypeFilter')
export class GpuTypeFilterInput {
  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(191)
  id?: string | null;
}

@InputType('GpuLowestPriceInput')
export class GpuLowestPriceInput {
  @Field(() => Int, { nullable: true })
  @IsOptional()
  @IsInt()
  gpuCount?: number | null;

  /** Every host here is the operator's own ("secure"): narrows nothing. */
  @Field(() => Boolean, { nullable: true })
  @IsOptional()
  @IsBoolean()
  secureCloud?: boolean | null;

  /** Placement here does not look at CUDA versions (the fleet records none): narrows nothing. */
  @Field(() => [String], { nullable: true })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(32)
  @Matches(/^\d{1,2}\.\d{1,2}$/, {
    each: true,
    message: 'allowedCudaVersions must hold versions like "12.8"',
  })
  allowedCudaVersions?: string[] | null;
}

/** Either deploy input: GPU (`gpuTypeId`) or CPU (`instanceId`). */
export type PodDeployInputs = PodFindAndDeployOnDemandInput | DeployCpuPodInput;
