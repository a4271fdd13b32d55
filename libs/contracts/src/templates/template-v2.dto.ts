import {
  Equals,
  IsBoolean,
  IsObject,
  IsNotEmpty,
  IsOptional,
  IsString,
  MaxLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { Type } from 'class-transformer';
import { PersistentMountDto } from '../common/mounts.dto.js';
import { IsEnvRecord } from '../common/string-record.js';
import {
  ContainerArgs,
  ContainerDisk,
  ContainerImage,
  ContainerPorts,
} from '../common/container-settings.dto.js';

/**
 * A template's mounts (RunPod's `TemplateMounts`): only `persistent`, the pod volume of the pods made from it
 * (`size` GB, at least 10 as upstream, at `path`); `network` is refused (422) as upstream does. v1 and GraphQL call
 * them `volumeInGb` and `volumeMountPath`.
 */
export class TemplateMountsV2Dto {
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => PersistentMountDto)
  persistent?: PersistentMountDto;
}

/**
 * The container settings of a template in the management API v2's names (RunPod's `ContainerConfig`): `image`,
 * `args`, `disk`, `registry` for v1's `imageName`, `dockerArgs`, `containerDiskInGb`, `containerRegistryAuthId`.
 */
abstract class TemplateV2Fields {
  @ContainerArgs()
  args?: string;

  /** Container disk in GB. */
  @ContainerDisk()
  disk?: number;

  @IsOptional()
  @IsEnvRecord()
  env?: Record<string, string>;

  @ContainerPorts()
  ports?: string[];

  /** A container registry credential id (`/v2/registries`), or null for none. */
  @ValidateIf((_, value) => value !== null && value !== undefined)
  @IsString()
  @IsNotEmpty()
  @MaxLength(256)
  registry?: string | null;

  /** The pod volume of pods made from the template; `{}` changes nothing. */
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => TemplateMountsV2Dto)
  mounts?: TemplateMountsV2Dto;

  /** A template for serverless endpoints' workers (true) or for pods (false, default). */
  @IsOptional()
  @IsBoolean()
  serverless?: boolean;

  /** Templates are private to their owner; public ones are the catalog's (`/v2/catalog/templates`). */
  @IsOptional()
  @Equals(false, { message: 'public must be false: only the catalog publishes templates' })
  public?: boolean;

  @IsOptional()
  @IsString()
  @MaxLength(4096)
  readme?: string;
}

/** Body of `POST /v2/templates`. */
export class CreateTemplateV2Dto extends TemplateV2Fields {
  @IsString()
  @IsNotEmpty()
  @MaxLength(191)
  name: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(512)
  image: string;
}

/** Body of `PATCH /v2/templates/{id}`: only the fields present change; `env` and `ports` replace the set. */
export class UpdateTemplateV2Dto extends TemplateV2Fields {
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(191)
  name?: string;

  @ContainerImage()
  image?: string;
}

/** A template as `/v2/templates` shows it. */
export interface TemplateV2View {
  id: string;
  name: string;
  image: string;
  args: string;
  disk: number;
  /** Values of secret-looking names (SECRET, PASSWORD, TOKEN, KEY) are masked. */
  env: Record<string, string>;
  ports: string[];
  /** The container registry credential id, or null. */
  registry: string | null;
  /** `{persistent: {size, path}}` when pods made from it get a pod volume, `{}` otherwise. */
  mounts: { persistent?: { size: number; path: string } };
  serverless: boolean;
  public: boolean;
  readme: string;
  createdAt: string;
}

/** `GET /v2/templates`: v2 lists are wrapped in an object named after the resource. */
export interface TemplateList {
  templates: TemplateV2View[];
}
