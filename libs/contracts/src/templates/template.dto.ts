import { IsBoolean, IsNotEmpty, IsOptional, IsString, MaxLength, ValidateIf } from 'class-validator';
import {
  ContainerFieldsDto,
  ContainerImage,
  ContainerSettingsDto,
  PodVolume,
} from '../common/container-settings.dto.js';

/** Body of `POST /v1/templates` (field names as RunPod's REST API). */
export class CreateTemplateDto extends ContainerSettingsDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(191)
  name: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(512)
  imageName: string;

  /**
   * Host-local persistent storage, GB, of the pods made from the template when their request asks for no mount of
   * its own (RunPod's `volumeInGb`, mounted at `volumeMountPath`, default `/workspace`); 0 for none.
   */
  @PodVolume()
  volumeInGb?: number;

  /** A template for serverless endpoints' workers (true) or for pods (false, default). */
  @IsOptional()
  @IsBoolean()
  isServerless?: boolean;

  @IsOptional()
  @IsString()
  @MaxLength(4096)
  readme?: string;
}

/**
 * Body of `PATCH /v1/templates/{id}`: only the fields present change. `containerRegistryAuthId: null` removes the
 * credential; `env` and `ports` replace the whole set.
 */
export class UpdateTemplateDto extends ContainerFieldsDto {
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(191)
  name?: string;

  @ContainerImage()
  imageName?: string;

  /** A credential id, or null for none. */
  @ValidateIf((_, value) => value !== null && value !== undefined)
  @IsString()
  @IsNotEmpty()
  @MaxLength(256)
  containerRegistryAuthId?: string | null;

  /**
   * Host-local persistent storage, GB, of the pods made from the template when their request asks for no mount of
   * its own (RunPod's `volumeInGb`, mounted at `volumeMountPath`, default `/workspace`); 0 for none.
   */
  @PodVolume()
  volumeInGb?: number;

  @IsOptional()
  @IsBoolean()
  isServerless?: boolean;

  @IsOptional()
  @IsString()
  @MaxLength(4096)
  readme?: string;
}

/**
 * The slices of the public catalog, as RunPod names them: `official` (curated by whoever runs the platform),
 * `verified` and `community`. Users cannot publish templates here, so only the operator's catalog file fills any.
 */
export const TEMPLATE_SOURCES = ['official', 'verified', 'community'] as const;
export type TemplateSource = (typeof TEMPLATE_SOURCES)[number];

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
  /** The pod volume of pods made from it, GB; 0 for none. */
  volumeInGb: number;
  volumeMountPath: string | null;
  isServerless: boolean;
  containerRegistryAuthId: string | null;
  readme: string;
  /** The owning user; null for a public template of the catalog. */
  userId: string | null;
  /** A public template of the operator's catalog: anyone may start from it, nobody may change it. */
  isPublic: boolean;
  createdAt: string;
}
