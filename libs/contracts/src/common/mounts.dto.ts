import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';

// The mounts of clusters and pods alike (`mounts` of POST /v1/clusters and of a v2 pod create).

/** Host-local storage (deprecated in favour of network mounts). Both fields required. */
export class PersistentMountDto {
  @IsInt()
  @Min(10)
  size: number;

  @IsString()
  @MinLength(1)
  @MaxLength(255)
  @Matches(/^\//, { message: 'path must be an absolute path inside the container' })
  path: string;
}

/** A network volume of the caller's, in the cluster's data center. Both fields required. */
export class NetworkMountDto {
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  volumeId: string;

  @IsString()
  @MinLength(1)
  @MaxLength(255)
  @Matches(/^\//, { message: 'path must be an absolute path inside the container' })
  path: string;
}

/** Mounts: at most one of `persistent` or `network` (both → 400, checked by the scheduler); `network` ≤ 1 item. */
export class MountsDto {
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => PersistentMountDto)
  persistent?: PersistentMountDto;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(1)
  @ValidateNested({ each: true })
  @Type(() => NetworkMountDto)
  network?: NetworkMountDto[];
}
