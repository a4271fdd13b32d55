import { priorityOf, type EndpointView, type EndpointWorkerView } from '@app/contracts';
import type { WorkerEntity } from '../workers/worker.entity.js';
import type { EndpointEntity } from './endpoint.entity.js';

export function toWorkerView(worker: WorkerEntity): EndpointWorkerView {
  return { podId: worker.podId, desiredStatus: worker.desired, status: worker.podStatus };
}

/** The endpoint as other apps see it; `workers` only when the caller read them. */
export function toEndpointView(entity: EndpointEntity, workers?: WorkerEntity[]): EndpointView {
  return {
    id: entity.id,
    ownerId: entity.ownerId,
    name: entity.name,
    type: entity.type,
    templateId: entity.templateId,
    gpuIds: [...entity.gpuIds],
    gpuCount: entity.gpuCount,
    locations: [...entity.locations],
    idleTimeout: entity.idleTimeout,
    scalerType: entity.scalerType,
    scalerValue: entity.scalerValue,
    workersMin: entity.workersMin,
    workersMax: entity.workersMax,
    flashBoot: entity.flashBoot,
    networkVolumeId: entity.networkVolumeId,
    createdAt: entity.createdAt.toISOString(),
    allowedCudaVersions: entity.allowedCudaVersions,
    env: { ...entity.env },
    priority: priorityOf(entity.priority),
    version: entity.version,
    aiKeySealed: entity.aiKeySealed,
    ...(workers ? { workers: workers.map(toWorkerView) } : {}),
  };
}
