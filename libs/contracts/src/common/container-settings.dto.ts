import {
  ArrayMaxSize,
  IsArray,
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
import { IsEnvRecord } from './string-record.js';

/**
 * The container settings a pod and a template share (RunPod's REST field names); every one optional here, since a
 * pod may take them from its template. The registry credential apart (ContainerSettingsDto): a template update
 * also takes `null` for it.
 */
export abstract class ContainerFieldsDto {
  /** Arguments passed to the container entrypoint. */
  @IsOptional()
  @IsString()
  @MaxLength(4096)
  dockerArgs?: string;

  @IsOptional()
  @IsEnvRecord()
  env?: Record<string, string>;

  /** Each `<port>/http` or `<port>/tcp`. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(32)
  @Matches(PORT_SPEC, { each: true, message: 'each port must be <number>/http or <number>/tcp' })
  ports?: string[];

  /** Container disk, GB (ephemeral: wiped by reset). Default 20. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(4096)
  containerDiskInGb?: number;

  @IsOptional()
  @IsString()
  @MaxLength(255)
  volumeMountPath?: string;
}

/** The container settings with the registry credential that pulls a private image. */
export abstract class ContainerSettingsDto extends ContainerFieldsDto {
  /** A registry credential of the caller's, to pull a private image. */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  containerRegistryAuthId?: string;
}
