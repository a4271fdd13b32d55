import {
  PodStatus,
  type CreatePodCommand,
  type CreatePodV2Dto,
  type PodRuntimePort,
  type PodV2View,
  type PodView,
  type UpdatePodCommand,
  type UpdatePodV2Dto,
} from '@app/contracts';

/**
 * The management API v2's names for the same pods /v1 and GraphQL serve: only renaming and reshaping here, every
 * rule (and the published `actions`) comes from pod-lifecycle.
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

/** A v2 update body in the command's (REST v1) names; `mounts` is the command's own (the interface's rules). */
export function fromUpdatePodV2(dto: UpdatePodV2Dto): Omit<UpdatePodCommand, 'podId'> {
  const command: Omit<UpdatePodCommand, 'podId'> = {};
  if (dto.name !== undefined) command.name = dto.name;
  if (dto.image !== undefined) command.imageName = dto.image;
  if (dto.args !== undefined) command.dockerArgs = dto.args;
  if (dto.disk !== undefined) command.containerDiskInGb = dto.disk;
  if (dto.ports !== undefined) command.ports = dto.ports;
  if (dto.env !== undefined) command.env = dto.env;
  // null clears the credential, as the command's own field takes it.
  if (dto.registry !== undefined) command.containerRegistryAuthId = dto.registry as string;
  if (dto.mounts !== undefined) command.mounts = dto.mounts;
  return command;
}

/** A v2 create body in the command's (REST v1) names; pod-lifecycle checks it like any other create. */
export function fromCreatePodV2(dto: CreatePodV2Dto): CreatePodCommand {
  // Its refusals name v2's fields (image, gpu.id, gpu.count, ...), not the command's.
  const command: CreatePodCommand = { name: dto.name, vocabulary: 'v2' };
  if (dto.image !== undefined) command.imageName = dto.image;
  if (dto.disk !== undefined) command.containerDiskInGb = dto.disk;
  if (dto.ports !== undefined) command.ports = dto.ports;
  if (dto.args !== undefined) command.dockerArgs = dto.args;
  if (dto.env !== undefined) command.env = dto.env;
  if (dto.dataCenterIds !== undefined) command.dataCenterIds = dto.dataCenterIds;
  if (dto.mounts !== undefined) command.mounts = dto.mounts;
  if (dto.templateId !== undefined) command.templateId = dto.templateId;
  if (dto.registry !== undefined) command.containerRegistryAuthId = dto.registry;
  if (dto.startSsh !== undefined) command.startSsh = dto.startSsh;
  if (dto.startJupyter !== undefined) command.startJupyter = dto.startJupyter;
  if (dto.priority !== undefined) command.priority = dto.priority;
  if (dto.interruptible !== undefined) command.interruptible = dto.interruptible;
  if (dto.gpu) {
    command.gpuTypeId = dto.gpu.id;
    command.gpuCount = dto.gpu.count ?? 1;
  }
  // Both gpu and cpu: the command says CPU with a GPU type, which pod-lifecycle refuses (422) as for /v1.
  if (dto.cpu) {
    command.computeType = 'CPU';
    command.cpuFlavorId = dto.cpu.id;
  }
  return command;
}
