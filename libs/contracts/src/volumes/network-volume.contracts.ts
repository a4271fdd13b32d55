import { IsInt, IsNotEmpty, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';

export const NETWORK_VOLUME_MAX_GB = 4000;

/** Body of `POST /v1/networkvolumes` (RunPod's field names). */
export class CreateNetworkVolumeDto {
  @IsString()
  @MinLength(1)
  @MaxLength(191)
  name: string;

  /** Size in GB. */
  @IsInt()
  @Min(1)
  @Max(NETWORK_VOLUME_MAX_GB)
  size: number;

  @IsString()
  @MinLength(1)
  @MaxLength(64)
  dataCenterId: string;
}

/** `volume.cmd.create`: the REST body as is. */
export class CreateNetworkVolumeCommand extends CreateNetworkVolumeDto {}

/** `volume.cmd.delete`: refused (400) while a cluster or a pod mounts the volume. */
export class DeleteNetworkVolumeCommand {
  @IsString()
  @IsNotEmpty()
  id: string;
}

export class GetNetworkVolumeQuery {
  @IsString()
  @IsNotEmpty()
  id: string;
}

export class ListNetworkVolumesQuery {}

export interface NetworkVolumeView {
  id: string;
  name: string;
  size: number;
  dataCenterId: string;
  createdAt: string;
}
