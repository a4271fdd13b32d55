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
import { NETWORK_VOLUME_MAX_GB } from '../volumes/network-volume.contracts.js';
import { IsEnvRecord } from './string-record.js';

/** Class-validator's decorators as one, applied in the order they would be stacked (the last one first). */
function rules(...decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, key) => {
    for (const decorate of [...decorators].reverse()) decorate(target, key);
  };
}

/**
 * The rules of a container's fields, whatever a surface calls them (v1's `imageName`, `dockerArgs`,
 * `containerDiskInGb`; v2's `image`, `args`, `disk`): each field optional, since a pod may take it from its
 * template, and checked alike in every body that takes it (pods, templates, endpoints, clusters).
 */
export const ContainerImage = (): PropertyDecorator =>
  rules(IsOptional(), IsString(), IsNotEmpty(), MaxLength(512));
/** Arguments passed to the container entrypoint. */
export const ContainerArgs = (): PropertyDecorator => rules(IsOptional(), IsString(), MaxLength(4096));
/** Container disk, GB (ephemeral: wiped by reset). */
export const ContainerDisk = (): PropertyDecorator => rules(IsOptional(), IsInt(), Min(1), Max(4096));
/** Each `<port>/http` or `<port>/tcp`. */
export const ContainerPorts = (): PropertyDecorator =>
  rules(
    IsOptional(),
    IsArray(),
    ArrayMaxSize(32),
    Matches(PORT_SPEC, { each: true, message: 'each port must be <number>/http or <number>/tcp' }),
  );

/** The largest pod volume (RunPod's `volumeInGb`) a pod or template may ask for, GB: a network volume's largest. */
export const MAX_POD_VOLUME_GB = NETWORK_VOLUME_MAX_GB;
/** A pod's volume disk, GB (RunPod's `volumeInGb`, at `volumeMountPath`); 0 for none. */
export const PodVolume = (): PropertyDecorator =>
  rules(IsOptional(), IsInt(), Min(0), Max(MAX_POD_VOLUME_GB));

/**
 * The container settings a pod and a template share (RunPod's REST field names); every one optional here, since a
 * pod may take them from its template. The registry credential apart (ContainerSettingsDto): a template update
 * also takes `null` for it.
 */
export abstract class ContainerFieldsDto {
  /** Arguments passed to the container entrypoint. */
  @ContainerArgs()
  dockerArgs?: string;

  @IsOptional()
  @IsEnvRecord()
  env?: Record<string, string>;

  /** Each `<port>/http` or `<port>/tcp`. */
  @ContainerPorts()
  ports?: string[];

  /** Container disk, GB (ephemeral: wiped by reset). Default 20. */
  @ContainerDisk()
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
