import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { PORT_SPEC } from '../placement/placement.contracts.js';
import { IsEnvRecord } from '../pods/string-record.js';

/** Body of `POST /v1/templates` (field names as RunPod's REST API). */
export class CreateTemplateDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(191)
  name: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(512)
  imageName: string;

  /** Arguments passed to the container entrypoint. */
  @IsOptional()
  @IsString()
  @MaxLength(4096)
  dockerArgs?: string;

  @IsOptional()
  @IsEnvRecord()
  env?: Record<string, string>;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(32)
  @Matches(PORT_SPEC, { each: true, message: 'each port must be <number>/http or <number>/tcp' })
  ports?: string[];

  /** Container disk, GB (default 20). */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(4096)
  @Type(() => Number)
  containerDiskInGb?: number;

  @IsOptional()
  @IsString()
  @MaxLength(255)
  volumeMountPath?: string;

  /** A template for serverless endpoints' workers (true) or for pods (false, default). */
  @IsOptional()
  @IsBoolean()
  isServerless?: boolean;

  /** A registry credential of the caller's, for private images. */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  containerRegistryAuthId?: string;

  @IsOptional()
  @IsString()
  @MaxLength(4096)
  readme?: string;
}

/** What the service shows of a template. */
export interface TemplateView {
  id: string;
  name: string;
  imageName: string;
  dockerArgs: string;
  /** Values of secret-looking names (SECRET, PASSWORD, TOKEN, KEY) are masked. */
  env: Record<string, string>;
  ports: string[];
  containerDiskInGb: number;
  volumeMountPath: string | null;
  isServerless: boolean;
  containerRegistryAuthId: string | null;
  readme: string;
  /** The owning user. */
  userId: string;
  createdAt: string;
}
