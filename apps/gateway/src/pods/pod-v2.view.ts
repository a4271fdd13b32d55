import type { CreatePodCommand, CreatePodV2Dto, UpdatePodCommand, UpdatePodV2Dto } from '@app/contracts';

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
