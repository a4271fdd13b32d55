import { IsInt, IsNotEmpty, IsOptional, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';

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

/**
 * Body of `POST /v2/network-volumes` (RunPod's v2 names: `dataCenter` for v1's `dataCenterId`). RunPod's storage
 * tiers (`type`) are not offered: every volume here is of the one kind the data center has.
 */
export class CreateNetworkVolumeV2Dto {
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
  dataCenter: string;
}

/**
 * Body of `PATCH /v1/networkvolumes/{id}` and `PATCH /v2/network-volumes/{id}`: a new name, a larger size, or
 * both; at least one (the owner refuses an empty change, and a smaller size: storage only grows).
 */
export class UpdateNetworkVolumeDto {
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(191)
  name?: string;

  /** New size in GB, at least the current one. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(NETWORK_VOLUME_MAX_GB)
  size?: number;
}

/** `volume.cmd.update`: the PATCH body for the volume `id`. */
export class UpdateNetworkVolumeCommand extends UpdateNetworkVolumeDto {
  @IsString()
  @IsNotEmpty()
  id: string;
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

/** `volume.evt.created`: the volume as its owner sees it, and whose it is. */
export interface NetworkVolumeCreatedEvent extends NetworkVolumeView {
  ownerId: string;
}

/** `GET /v2/network-volumes`: v2 lists are wrapped in an object named after the resource. */
export interface NetworkVolumeList {
  networkVolumes: NetworkVolumeView[];
}
