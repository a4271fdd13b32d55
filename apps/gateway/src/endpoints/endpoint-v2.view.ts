import {
  DomainError,
  ErrorCode,
  type CreateEndpointV2Dto,
  type EndpointV2View,
  type EndpointView,
  type SaveEndpointCommand,
  type UpdateEndpointV2Dto,
} from '@app/contracts';
import type { EndpointDetails } from './endpoints.service.js';

/**
 * The management API v2's shape of the endpoints GraphQL's `saveEndpoint` manages: only renaming here, every
 * rule stays in EndpointsService and endpoint-autoscaler.
 */
export function toEndpointV2View({ view, aiKey }: EndpointDetails): EndpointV2View {
  return {
    id: view.id,
    name: view.name,
    type: view.type === 'LB' ? 'LOAD_BALANCER' : 'QUEUE',
    templateId: view.templateId,
    gpu: {
      pools: view.gpuIds,
      count: view.gpuCount,
      allowedCudaVersions: cudaVersionList(view),
    },
    workers: { min: view.workersMin, max: view.workersMax, idleTimeout: view.idleTimeout },
    scaling:
      view.scalerType === 'QUEUE_DELAY'
        ? { type: 'QUEUE_DELAY', queueDelay: view.scalerValue }
        : { type: 'REQUEST_COUNT', requestCount: view.scalerValue },
    flashboot: view.flashBoot ? 'FLASHBOOT' : 'OFF',
    networkVolumes: view.networkVolumeId ? [view.networkVolumeId] : [],
    env: view.env ?? {},
    aiKey,
    version: view.version ?? 1,
    createdAt: view.createdAt,
  };
}

/** The endpoint's allowed CUDA versions (stored comma-separated) as the list v1 and v2 show. */
export function cudaVersionList(view: EndpointView): string[] {
  return (view.allowedCudaVersions ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
}

/**
 * The save command of a v2 create (`current` null: the DTO has name, template and GPU pools) or update (absent
 * fields keep `current`'s values, as the command needs those three every time). 422 when `scaling` lacks the
 * value its type names, or workers.min would exceed workers.max.
 */
export function toSaveCommandV2(
  dto: CreateEndpointV2Dto | UpdateEndpointV2Dto,
  current: EndpointView | null,
): SaveEndpointCommand {
  const errors: string[] = [];
  const scaling = dto.scaling;
  const scalerValue = scaling?.type === 'QUEUE_DELAY' ? scaling.queueDelay : scaling?.requestCount;
  if (scaling && scalerValue === undefined) {
    errors.push(
      `scaling: type ${scaling.type} needs ${scaling.type === 'QUEUE_DELAY' ? 'queueDelay' : 'requestCount'}`,
    );
  }
  const min = dto.workers?.min ?? current?.workersMin;
  const max = dto.workers?.max ?? current?.workersMax;
  if (min !== undefined && max !== undefined && min > max) {
    errors.push(`workers.min (${min}) must not be greater than workers.max (${max})`);
  }
  if (errors.length) {
    throw new DomainError(ErrorCode.ValidationFailed, 'the endpoint failed validation', errors);
  }

  const command: SaveEndpointCommand = {
    ...(current ? { id: current.id } : {}),
    name: (dto.name ?? current?.name)!,
    templateId: (dto.templateId ?? current?.templateId)!,
    gpuIds: (dto.gpu?.pools ?? current?.gpuIds) as SaveEndpointCommand['gpuIds'],
  };
  if (dto.type) command.type = dto.type === 'LOAD_BALANCER' ? 'LB' : 'QB';
  if (dto.gpu?.count !== undefined) command.gpuCount = dto.gpu.count;
  if (dto.gpu?.allowedCudaVersions) command.allowedCudaVersions = dto.gpu.allowedCudaVersions.join(',');
  if (dto.workers?.min !== undefined) command.workersMin = dto.workers.min;
  if (dto.workers?.max !== undefined) command.workersMax = dto.workers.max;
  if (dto.workers?.idleTimeout !== undefined) command.idleTimeout = dto.workers.idleTimeout;
  if (scaling) {
    command.scalerType = scaling.type;
    command.scalerValue = scalerValue;
  }
  if (dto.flashboot) command.flashBoot = dto.flashboot === 'FLASHBOOT';
  if (dto.networkVolumes) command.networkVolumeId = dto.networkVolumes[0] ?? null;
  if (dto.env) command.env = dto.env;
  return command;
}
