import {
  DEFAULT_PRIORITY,
  DomainError,
  ErrorCode,
  type CreateEndpointV2Dto,
  type CreateTemplateDto,
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
    priority: view.priority ?? DEFAULT_PRIORITY,
    aiKey,
    version: view.version ?? 1,
    createdAt: view.createdAt,
  };
}

/** What only a create from `image` takes: the container settings of the template made for the endpoint. */
const IMAGE_FIELDS = ['image', 'args', 'disk', 'ports', 'registry'] as const;

/**
 * The serverless template a v2 create from `image` makes for its endpoint (RunPod's REST creates an endpoint from an
 * image as well as from a template), named after the endpoint (`<name>__template__<suffix>`: names are unique per
 * owner, endpoints' are not); null for a create from `templateId`. 422 in v2's names when the body has neither,
 * or both (a template's settings are changed on the template: PATCH /v2/templates/{id}).
 */
export function toTemplateFromImageV2(dto: CreateEndpointV2Dto, suffix: string): CreateTemplateDto | null {
  const given = IMAGE_FIELDS.filter((field) => dto[field] !== undefined);
  const errors: string[] = [];
  if (dto.templateId !== undefined && given.length) {
    errors.push(
      `${given.join(', ')}: not with templateId, whose template gives the container ` +
        '(change it with PATCH /v2/templates/{id}); or send image without templateId',
    );
  } else if (dto.templateId === undefined && dto.image === undefined) {
    errors.push(
      given.length
        ? `image is required with ${given.join(', ')} (or send templateId instead)`
        : "templateId or image is required: the workers' container comes from a serverless template or an image",
    );
  }
  if (errors.length) {
    throw new DomainError(ErrorCode.ValidationFailed, 'the endpoint failed validation', errors);
  }
  if (dto.image === undefined) return null;
  return {
    name: `${dto.name.slice(0, 160)}__template__${suffix}`,
    imageName: dto.image,
    isServerless: true,
    ...(dto.args !== undefined ? { dockerArgs: dto.args } : {}),
    ...(dto.disk !== undefined ? { containerDiskInGb: dto.disk } : {}),
    ...(dto.ports !== undefined ? { ports: dto.ports } : {}),
    ...(dto.registry !== undefined ? { containerRegistryAuthId: dto.registry } : {}),
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
 * The save command of a v2 create (`current` null: the DTO has name and GPU pools, and the template unless it is
 * made from `image`, then set by the caller) or update (absent fields keep `current`'s values, as the command
 * needs those three every time). 422 when `scaling` lacks the
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
  if (dto.priority) command.priority = dto.priority;
  return command;
}
