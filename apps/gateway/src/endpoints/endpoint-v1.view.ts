import {
  DEFAULT_PRIORITY,
  DomainError,
  ErrorCode,
  GPU_TIERS,
  type CreateEndpointV1Dto,
  type EndpointV1View,
  type EndpointView,
  type GpuTier,
  type GpuTypeView,
  type SaveEndpointCommand,
  type UpdateEndpointV1Dto,
} from '@app/contracts';
import { cudaVersionList } from './endpoint-v2.view.js';
import type { EndpointDetails } from './endpoints.service.js';

/**
 * REST v1's shape of the endpoints GraphQL's `saveEndpoint` manages: renaming, and the GPU pools also shown as the
 * catalog's GPU types in them (RunPod's v1 `gpuTypeIds` names types); every rule stays in EndpointsService and
 * endpoint-autoscaler.
 */
export function toEndpointV1View({ view, aiKey }: EndpointDetails, gpuTypes: GpuTypeView[]): EndpointV1View {
  return {
    id: view.id,
    name: view.name,
    userId: view.ownerId,
    templateId: view.templateId,
    computeType: 'GPU',
    gpuTypeIds: view.gpuIds.flatMap((pool) => gpuTypes.filter((t) => t.tier === pool).map((t) => t.id)),
    gpuIds: view.gpuIds.join(','),
    gpuCount: view.gpuCount,
    locations: view.locations.join(','),
    networkVolumeId: view.networkVolumeId,
    idleTimeout: view.idleTimeout,
    scalerType: view.scalerType,
    scalerValue: view.scalerValue,
    workersMin: view.workersMin,
    workersMax: view.workersMax,
    flashboot: view.flashBoot,
    allowedCudaVersions: cudaVersionList(view),
    env: view.env ?? {},
    priority: view.priority ?? DEFAULT_PRIORITY,
    aiKey,
    version: view.version ?? 1,
    createdAt: view.createdAt,
  };
}

/**
 * The save command of a v1 create (`current` null) or update (absent fields keep `current`'s values, as the
 * command needs name, template and pools every time). The other fields have the command's names already.
 */
export function toSaveCommandV1(
  dto: CreateEndpointV1Dto | UpdateEndpointV1Dto,
  current: EndpointView | null,
  gpuTypes: GpuTypeView[],
): SaveEndpointCommand {
  const {
    name,
    templateId,
    gpuTypeIds,
    computeType: _onlyGpu,
    flashboot,
    allowedCudaVersions,
    ...sameNames
  } = dto;
  const command: SaveEndpointCommand = {
    ...(current ? { id: current.id } : {}),
    name: (name ?? current?.name)!,
    templateId: (templateId ?? current?.templateId)!,
    gpuIds: gpuTypeIds ? gpuPools(gpuTypeIds, gpuTypes) : (current!.gpuIds as GpuTier[]),
    ...Object.fromEntries(Object.entries(sameNames).filter(([, value]) => value !== undefined)),
  };
  if (flashboot !== undefined) command.flashBoot = flashboot;
  if (allowedCudaVersions) command.allowedCudaVersions = allowedCudaVersions.join(',');
  return command;
}

/** Each entry a pool, or a GPU type of the catalog standing for its pool (422 naming every other entry). */
function gpuPools(ids: string[], gpuTypes: GpuTypeView[]): GpuTier[] {
  const errors: string[] = [];
  const pools = ids.map((id) => {
    if ((GPU_TIERS as readonly string[]).includes(id)) return id as GpuTier;
    const type = gpuTypes.find((t) => t.id === id);
    if (!type) {
      errors.push(
        `gpuTypeIds: "${id}" is neither a GPU pool (${GPU_TIERS.join(', ')}) nor a GPU type of the catalog`,
      );
    }
    return type?.tier;
  });
  if (errors.length) {
    throw new DomainError(ErrorCode.ValidationFailed, 'the endpoint failed validation', errors);
  }
  return [...new Set(pools)] as GpuTier[];
}
