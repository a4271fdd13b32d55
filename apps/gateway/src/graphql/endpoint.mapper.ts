import {
  DEFAULT_PRIORITY,
  DomainError,
  ErrorCode,
  GPU_TIERS,
  REGION_CODES,
  type EndpointType,
  type EndpointView,
  type GpuTier,
  type NetworkVolumeView,
  type RegionCode,
  type SaveEndpointCommand,
  type ScalerType,
} from '@app/contracts';
import type { EndpointInput } from './inputs/endpoint.input.js';
import type { EndpointModel } from './models/endpoint.model.js';
import { FlashBootType } from './models/flash-boot-type.enum.js';

/** What the gateway adds to the autoscaler's view when it answers: the opened key and the volume's place. */
export interface EndpointExtras {
  aiKey: string | null;
  networkVolume: NetworkVolumeView | null;
}

export function toEndpointModel(view: EndpointView, extras: EndpointExtras): EndpointModel {
  const workers = view.workers ?? [];
  return {
    id: view.id,
    name: view.name,
    gpuIds: view.gpuIds.join(','),
    gpuCount: view.gpuCount,
    templateId: view.templateId,
    type: view.type,
    idleTimeout: view.idleTimeout,
    locations: view.locations.length ? view.locations.join(',') : null,
    flashBootType: view.flashBoot ? FlashBootType.FLASHBOOT : FlashBootType.OFF,
    scalerType: view.scalerType,
    scalerValue: view.scalerValue,
    workersMin: view.workersMin,
    workersMax: view.workersMax,
    workersStandby: workers.filter((w) => w.desiredStatus === 'EXITED').length,
    networkVolumeId: view.networkVolumeId,
    networkVolume: extras.networkVolume
      ? {
          id: extras.networkVolume.id,
          name: extras.networkVolume.name,
          size: extras.networkVolume.size,
          dataCenterId: extras.networkVolume.dataCenterId,
        }
      : null,
    allowedCudaVersions: view.allowedCudaVersions || null,
    aiKey: extras.aiKey,
    userId: view.ownerId,
    version: view.version ?? 1,
    env: Object.entries(view.env ?? {}).map(([key, value]) => ({ key, value })),
    priority: view.priority ?? DEFAULT_PRIORITY,
    createdAt: view.createdAt,
    pods: workers.map((w) => ({ id: w.podId, desiredStatus: w.desiredStatus, status: w.status })),
  };
}

/**
 * The save command of an input, minus the sealed key: comma lists parsed and checked (422 naming each bad
 * value), empty strings turned into "none"/"any". Absent fields stay absent (a modify keeps them).
 */
export function toSaveCommand(input: EndpointInput): SaveEndpointCommand {
  const errors: string[] = [];
  const gpuIds = commaList(input.gpuIds).map((tier) => tier.toUpperCase());
  if (!gpuIds.length) errors.push(`gpuIds must name at least one GPU tier (${GPU_TIERS.join(', ')})`);
  for (const tier of gpuIds) {
    if (!(GPU_TIERS as readonly string[]).includes(tier)) {
      errors.push(`gpuIds: "${tier}" is not a GPU tier; use ${GPU_TIERS.join(', ')}`);
    }
  }
  const locations =
    input.locations === undefined ? undefined : commaList(input.locations ?? '').map((l) => l.toUpperCase());
  for (const location of locations ?? []) {
    if (!(REGION_CODES as readonly string[]).includes(location)) {
      errors.push(`locations: "${location}" is not a region; use ${REGION_CODES.join(', ')} or "" for any`);
    }
  }
  if (input.workersMin != null && input.workersMax != null && input.workersMin > input.workersMax) {
    errors.push(`workersMin (${input.workersMin}) must not be greater than workersMax (${input.workersMax})`);
  }
  const cuda = input.allowedCudaVersions?.trim();
  if (cuda && !/^\d+\.\d+(\s*,\s*\d+\.\d+)*$/.test(cuda)) {
    errors.push(`allowedCudaVersions must be comma-separated versions like "12.1,12.2"; got "${cuda}"`);
  }
  if (errors.length) {
    throw new DomainError(ErrorCode.ValidationFailed, 'the endpoint failed validation', errors);
  }

  const command: SaveEndpointCommand = {
    name: input.name,
    templateId: input.templateId,
    gpuIds: [...new Set(gpuIds)] as GpuTier[],
  };
  if (input.id) command.id = input.id;
  if (input.type != null) command.type = input.type as EndpointType;
  if (input.gpuCount != null) command.gpuCount = input.gpuCount;
  if (locations !== undefined) command.locations = [...new Set(locations)] as RegionCode[];
  if (input.idleTimeout != null) command.idleTimeout = input.idleTimeout;
  if (input.scalerType != null) command.scalerType = input.scalerType as ScalerType;
  if (input.scalerValue != null) command.scalerValue = input.scalerValue;
  if (input.workersMin != null) command.workersMin = input.workersMin;
  if (input.workersMax != null) command.workersMax = input.workersMax;
  if (input.flashBootType != null) command.flashBoot = input.flashBootType === FlashBootType.FLASHBOOT;
  if (input.networkVolumeId !== undefined) command.networkVolumeId = input.networkVolumeId?.trim() || null;
  if (input.allowedCudaVersions != null) command.allowedCudaVersions = cuda ?? '';
  if (input.env != null) command.env = Object.fromEntries(input.env.map((e) => [e.key, e.value]));
  if (input.priority != null) command.priority = input.priority;
  return command;
}

function commaList(value: string): string[] {
  return value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
}
