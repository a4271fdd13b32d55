import { IsBoolean, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { ContainerSettingsDto } from '../common/container-settings.dto.js';

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

  /** A template for serverless endpoints' workers (true) or for pods (false, default). */
  @IsOptional()
  @IsBoolean()
  isServerless?: boolean;

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
