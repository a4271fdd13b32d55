import { Field, InputType, Int } from '@nestjs/graphql';
import { IsInt, IsNotEmpty, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';
import { NETWORK_VOLUME_MAX_GB } from '@app/contracts';

/** `createNetworkVolume(input: {name, size, dataCenterId})`: the limits of the REST body. */
@InputType('CreateNetworkVolumeInput')
export class CreateNetworkVolumeInput {
  @Field(() => String)
  @IsString()
  @MinLength(1)
  @MaxLength(191)
  name: string;

  @Field(() => Int)
  @IsInt()
  @Min(1)
  @Max(NETWORK_VOLUME_MAX_GB)
  size: number;

  @Field(() => String)
  @IsString()
  @MinLength(1)
  @MaxLength(64)
  dataCenterId: string;
}

/** `deleteNetworkVolume(input: {id})`. */
@InputType('DeleteNetworkVolumeInput')
export class DeleteNetworkVolumeInput {
  @Field(() => String)
  @IsString()
  @IsNotEmpty()
  @MaxLength(256)
  id: string;
}
