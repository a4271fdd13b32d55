import type { CreatePodCommand, PodView } from '@app/contracts';
import type { PodDeployInputs } from './inputs/pod.input.js';
import type { PodModel } from './models/pod.model.js';

/** A pod as the SDK's documents read it. */
export function toPodModel(view: PodView, now: Date): PodModel {
  const running = view.status === 'RUNNING';
  const uptime =
    running && view.lastStartedAt
      ? Math.max(0, Math.floor((now.getTime() - Date.parse(view.lastStartedAt)) / 1000))
      : 0;
  const ports = view.ports.map((spec) => {
    const [port, type] = spec.split('/');
    const publicPort = view.portMappings[port] ?? null;
    return {
      ip: view.publicIp,
      isIpPublic: view.publicIp !== null && publicPort !== null,
      privatePort: Number(port),
      publicPort,
      type: type ?? 'tcp',
    };
  });
  return {
    id: view.id,
    name: view.name,
    imageName: view.imageName,
    dockerArgs: view.dockerArgs,
    dockerId: null,
    env: Object.entries(view.env).map(([key, value]) => `${key}=${value}`),
    gpuCount: view.gpuCount,
    costPerHr: view.costPerHr,
    desiredStatus: view.desiredStatus,
    status: view.status,
    lastStatusChange: view.lastStatusChange,
    reason: view.reason
      ? { code: view.reason.code, message: view.reason.message, since: view.reason.since }
      : null,
    machineId: view.machineId,
    machine: {
      podHostId: view.machineId,
      gpuTypeId: view.gpuTypeId,
      dataCenterId: view.dataCenterId,
    },
    memoryInGb: null,
    vcpuCount: null,
    podType: view.interruptible ? 'INTERRUPTABLE' : 'RESERVED',
    priority: view.priority,
    port: ports[0]?.privatePort ?? null,
    ports: view.ports.join(','),
    uptimeSeconds: uptime,
    containerDiskInGb: view.containerDiskInGb,
    volumeInGb: view.volumeInGb,
    volumeMountPath: view.volumeMountPath,
    runtime: running ? { uptimeInSeconds: uptime, ports } : null,
  };
}

/**
 * `podFindAndDeployOnDemand` / `deployCpuPod` → the one pod create every surface uses; `cpuTypeId` is the CPU
 * type `instanceId` resolved to (cpu-instance.ts), absent for any.
 */
export function toCreatePod(input: PodDeployInputs, cpuTypeId?: string): CreatePodCommand {
  const gpu = 'gpuTypeId' in input;
  const ports = (input.ports ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  return {
    name: input.name,
    // Its refusals name GraphQL's arguments (instanceId, dataCenterId, ...), not the command's fields.
    vocabulary: 'graphql',
    ...(input.imageName ? { imageName: input.imageName } : {}),
    ...(gpu
      ? { computeType: 'GPU', gpuTypeId: input.gpuTypeId, gpuCount: input.gpuCount ?? 1 }
      : { computeType: 'CPU', ...(cpuTypeId ? { cpuFlavorId: cpuTypeId } : {}) }),
    ...(input.dockerArgs ? { dockerArgs: input.dockerArgs } : {}),
    ...(input.containerDiskInGb ? { containerDiskInGb: input.containerDiskInGb } : {}),
    ...(ports.length ? { ports } : {}),
    ...(input.env?.length ? { env: Object.fromEntries(input.env.map((e) => [e.key, e.value])) } : {}),
    ...(input.dataCenterId ? { dataCenterIds: [input.dataCenterId] } : {}),
    ...(input.templateId ? { templateId: input.templateId } : {}),
    ...(input.volumeInGb ? { volumeInGb: input.volumeInGb } : {}),
    ...(input.networkVolumeId ? { networkVolumeId: input.networkVolumeId } : {}),
    ...(input.volumeMountPath ? { volumeMountPath: input.volumeMountPath } : {}),
    ...(input.startSsh ? { startSsh: true } : {}),
    ...(input.priority ? { priority: input.priority } : {}),
  };
}
