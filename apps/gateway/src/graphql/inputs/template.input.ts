import { Field, InputType, Int } from '@nestjs/graphql';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  Equals,
  IsArray,
  IsBoolean,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { MAX_POD_VOLUME_GB } from '@app/contracts';
import { EnvironmentVariableInput } from './endpoint.input.js';

/**
 * `saveTemplate(input: {...})` as the Python SDK sends it: creates without `id`, replaces the given fields with
 * it. `ports` is one comma-separated string, an empty `containerRegistryAuthId` means none. `startSsh` and
 * `startJupyter` are accepted because the SDK always sends them; whether a pod runs sshd or Jupyter is decided
 * by the pod's own create request, so a template does not store them.
 */
@InputType('SaveTemplateInput')
export class SaveTemplateInput {
  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(256)
  id?: string;

  @Field(() => String)
  @IsString()
  @IsNotEmpty()
  @MaxLength(191)
  name: string;

  @Field(() => String)
  @IsString()
  @IsNotEmpty()
  @MaxLength(512)
  imageName: string;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(4096)
  dockerArgs?: string;

  @Field(() => Int, { nullable: true })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(4096)
  containerDiskInGb?: number;

  @Field(() => Int, { nullable: true })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_POD_VOLUME_GB)
  volumeInGb?: number;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  volumeMountPath?: string;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  ports?: string;

  @Field(() => [EnvironmentVariableInput], { nullable: true })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(256)
  @ValidateNested({ each: true })
  @Type(() => EnvironmentVariableInput)
  env?: EnvironmentVariableInput[];

  @Field(() => Boolean, { nullable: true })
  @IsOptional()
  @IsBoolean()
  isServerless?: boolean;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  containerRegistryAuthId?: string;

  @Field(() => Boolean, { nullable: true })
  @IsOptional()
  @IsBoolean()
  startSsh?: boolean;

  @Field(() => Boolean, { nullable: true })
  @IsOptional()
  @IsBoolean()
  startJupyter?: boolean;

  @Field(() => Boolean, { nullable: true })
  @IsOptional()
  @Equals(false, { message: 'isPublic must be false: only the catalog publishes templates' })
  isPublic?: boolean;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(4096)
  readme?: string;
}
