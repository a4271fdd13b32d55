import {
  MASK,
  maskEnv,
  podWaitReason,
  priorityOf,
  type PodStatusChangedEvent,
  type PodView,
} from '@app/contracts';
import type { PodEntity } from './pod.entity.js';
import { allowedActions, publishedActions } from './pod-status-machine.js';
import { costPerHr } from './usage/pod-usage.rules.js';

/** `{"22/tcp": 40122}` → `{"22": 40122}` (RunPod's shape). */
function publicPorts(mappings: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(mappings).map(([spec, port]) => [spec.split('/')[0], port]));
}

/** A pod's times as its views write them: ISO 8601 in UTC, to the millisecond. */
export interface PodTimes {
  hostNoticeAt: string | null;
  stopDeadline: string | null;
  lastStatusChange: string;
  lastStartedAt: string | null;
  createdAt: string;
}

/** A pod as a list reads it (PodRepository.listByOwner): its columns, its times already written as ISO text. */
export type PodListRow = Omit<PodEntity, keyof PodTimes> & PodTimes;

/**
 * What users see of a pod: secret-looking env values masked unless `secrets` (asked for a key that may manage the
 * pod: its owner's own values, a generated JUPYTER_PASSWORD among them), the platform's secret variables listed by
 * name only (always masked), never a registry password.
 */
export function toPodView(pod: PodEntity, options: { secrets?: boolean } = {}): PodView {
  return podView(pod, isoTimes(pod), options);
}

/** The same view of a pod a list read (pod.repository.int-spec.ts checks the two agree). */
export function listedPodView(row: PodListRow, options: { secrets?: boolean } = {}): PodView {
  return podView(row, row, options);
}

function isoTimes(pod: PodEntity): PodTimes {
  return {
    hostNoticeAt: pod.hostNoticeAt?.toISOString() ?? null,
    stopDeadline: pod.stopDeadline?.toISOString() ?? null,
    lastStatusChange: pod.lastStatusChange.toISOString(),
    lastStartedAt: pod.lastStartedAt?.toISOString() ?? null,
    createdAt: pod.createdAt.toISOString(),
  };
}

function podView(
  pod: Omit<PodEntity, keyof PodTimes>,
  times: PodTimes,
  { secrets = false }: { secrets?: boolean },
): PodView {
  return {
    id: pod.id,
    name: pod.name,
    userId: pod.ownerId,
    image: pod.image,
    imageName: pod.image,
    dockerArgs: pod.args,
    env: {
      ...(secrets ? pod.env : maskEnv(pod.env)),
      ...Object.fromEntries(Object.keys(pod.secretEnv).map((name) => [name, MASK])),
    },
    ports: pod.ports,
    portMappings: publicPorts(pod.portMappings),
    publicIp: pod.publicIp,
    containerDiskInGb: pod.containerDiskGb,
    volumeInGb: pod.mounts?.persistent?.size ?? 0,
    volumeMountPath: pod.volumeMountPath,
    computeType: pod.gpuCount > 0 || pod.gpuTypeId ? 'GPU' : 'CPU',
    gpuTypeId: pod.gpuTypeId,
    gpuCount: pod.gpuCount,
    cpuFlavorId: pod.cpuTypeId,
    machineId: pod.hostId,
    dataCenterId: pod.dataCenterId,
    machine: { gpuTypeId: pod.gpuTypeId, dataCenterId: pod.dataCenterId },
    clusterId: pod.clusterId,
    endpointId: pod.endpointId,
    clusterRank: pod.clusterRank,
    clusterRole: pod.clusterRole,
    clusterIp: pod.overlayIp,
    templateId: pod.templateId,
    containerRegistryAuthId: pod.registryAuthId,
    networkVolumeId: pod.networkVolumeId,
    status: pod.status,
    desiredStatus: pod.desiredStatus,
    statusReason: pod.statusReason,
    reason: podWaitReason({
      status: pod.status,
      desiredStatus: pod.desiredStatus,
      statusReason: pod.statusReason,
      lastStatusChange: times.lastStatusChange,
      hostNotice: pod.hostNotice,
      hostNoticeAt: times.hostNoticeAt,
      stopDeadline: times.stopDeadline,
    }),
    hostNotice: pod.hostNotice,
    stopDeadline: times.stopDeadline,
    lastStatusChange: times.lastStatusChange,
    lastStartedAt: times.lastStartedAt,
    createdAt: times.createdAt,
    costPerHr: costPerHr(pod),
    priority: priorityOf(pod.priority),
    interruptible: pod.interruptible,
    allowedActions: allowedActions(pod.status, pod.clusterId !== null),
    actions: publishedActions(pod.status, pod.clusterId !== null),
  };
}

/** The event every status change publishes (the scheduler's cluster summary and GPU accounting follow it). */
export function toStatusChangedEvent(
  pod: PodEntity,
  previousStatus: PodEntity['status'] | null,
): PodStatusChangedEvent {
  return {
    podId: pod.id,
    ownerId: pod.ownerId,
    clusterId: pod.clusterId,
    rank: pod.clusterRank,
    status: pod.status,
    previousStatus,
    hostId: pod.hostId,
    publicIp: pod.publicIp,
    portMappings: pod.portMappings,
    at: pod.lastStatusChange.toISOString(),
    endpointId: pod.endpointId,
  };
}
