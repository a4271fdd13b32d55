import { PodStatus } from './pod-status.js';
import type { PodRuntimePort, PodV2View } from './pod-v2.dto.js';
import type { PodView } from './pod.dto.js';

/**
 * The management API v2's names for the same pods /v1 and GraphQL serve: only renaming and reshaping here, every
 * rule (and the published `actions`) comes from pod-lifecycle. In the contracts because two apps shape it: the
 * gateway for a single pod, pod-lifecycle for the pages of a v2 list (`pod.qry.list-v2`), which the gateway passes
 * through as they were serialized (ADR 46).
 */
export function toPodV2View(pod: PodView): PodV2View {
  const runtime = pod.status === PodStatus.Running ? { ports: runtimePorts(pod) } : null;
  const sshPort = runtime?.ports.find((port) => port.private === 22 && port.type === 'tcp');
  return {
    id: pod.id,
    name: pod.name,
    status: pod.status,
    desiredStatus: pod.desiredStatus,
    statusReason: pod.statusReason,
    reason: pod.reason,
    hostNotice: pod.hostNotice,
    stopDeadline: pod.stopDeadline,
    actions: pod.actions,
    image: pod.image,
    args: pod.dockerArgs,
    disk: pod.containerDiskInGb,
    env: pod.env,
    ports: pod.ports,
    gpu: pod.computeType === 'GPU' ? { id: pod.gpuTypeId, count: pod.gpuCount } : null,
    cpu: pod.computeType === 'CPU' ? { id: pod.cpuFlavorId } : null,
    dataCenterId: pod.dataCenterId,
    machineId: pod.machineId,
    publicIp: pod.publicIp,
    portMappings: pod.portMappings,
    runtime,
    ssh: {
      direct: sshPort
        ? { ip: sshPort.ip, port: sshPort.public, command: `ssh root@${sshPort.ip} -p ${sshPort.public}` }
        : null,
    },
    templateId: pod.templateId,
    registry: pod.containerRegistryAuthId,
    networkVolumeId: pod.networkVolumeId,
    volumeInGb: pod.volumeInGb,
    volumeMountPath: pod.volumeMountPath,
    endpointId: pod.endpointId,
    cluster: pod.clusterId
      ? { id: pod.clusterId, rank: pod.clusterRank, role: pod.clusterRole, ip: pod.clusterIp }
      : null,
    lastStatusChange: pod.lastStatusChange,
    lastStartedAt: pod.lastStartedAt,
    createdAt: pod.createdAt,
    costPerHr: pod.costPerHr,
    priority: pod.priority,
    interruptible: pod.interruptible,
  };
}

/** Each exposed port that has a public mapping, as `{private, public, ip, type}`. */
function runtimePorts(pod: PodView): PodRuntimePort[] {
  if (!pod.publicIp) return [];
  const ip = pod.publicIp;
  return pod.ports.flatMap((spec) => {
    const [port, type] = spec.split('/');
    const published = pod.portMappings[port];
    return published === undefined
      ? []
      : [{ private: Number(port), public: published, ip, type: type === 'http' ? 'http' : 'tcp' } as const];
  });
}
