import {
  DEFAULT_PRIORITY,
  PodStatus,
  podWaitReason,
  toPodV2View,
  type ClusterMemberView,
  type PodV2View,
  type PodView,
} from '@app/contracts';

/**
 * A member pod-lifecycle has not created yet (or while it does not answer), as a v2 pod: what the scheduler
 * placed, in the same shape as the members it has created. It takes no action yet (`actions` empty: the pod's
 * routes answer 404 until it exists) and costs nothing yet (usage starts with the pod).
 */
export function memberToPodV2View(member: ClusterMemberView, ownerId: string): PodV2View {
  const desiredStatus = member.status === PodStatus.Terminated ? PodStatus.Terminated : PodStatus.Running;
  const pod: PodView = {
    id: member.id,
    name: member.name,
    userId: ownerId,
    image: member.image,
    imageName: member.image,
    dockerArgs: member.dockerArgs,
    env: member.env,
    ports: member.ports,
    // The scheduler keys mappings by port spec (`22/tcp`), pods by port (`22`).
    portMappings: Object.fromEntries(
      Object.entries(member.portMappings).map(([spec, port]) => [spec.split('/')[0], port]),
    ),
    publicIp: member.publicIp,
    containerDiskInGb: member.containerDiskInGb,
    volumeInGb: 0,
    volumeMountPath: null,
    computeType: 'GPU',
    gpuTypeId: member.gpuTypeId,
    gpuCount: member.gpuCount,
    cpuFlavorId: null,
    machineId: member.machineId,
    dataCenterId: member.dataCenterId,
    machine: { gpuTypeId: member.gpuTypeId, dataCenterId: member.dataCenterId },
    clusterId: member.clusterId,
    endpointId: null,
    clusterRank: member.clusterRank,
    clusterRole: member.clusterRole,
    clusterIp: member.clusterIp,
    templateId: null,
    containerRegistryAuthId: null,
    networkVolumeId: member.networkVolumeId,
    status: member.status,
    desiredStatus,
    statusReason: null,
    reason: podWaitReason({
      status: member.status,
      desiredStatus,
      statusReason: null,
      lastStatusChange: member.lastStatusChange,
    }),
    hostNotice: null,
    stopDeadline: null,
    lastStatusChange: member.lastStatusChange,
    lastStartedAt: null,
    createdAt: member.createdAt,
    costPerHr: 0,
    // The scheduler's member record keeps no priority (the pod, once created, shows its cluster's).
    priority: DEFAULT_PRIORITY,
    interruptible: false,
    allowedActions: [],
    actions: [],
  };
  return toPodV2View(pod);
}
