import {
  DomainError,
  ErrorCode,
  PORT_SPEC,
  type CreateTemplateDto,
  type TemplateView,
  type UpdateTemplateDto,
} from '@app/contracts';
import type { SaveTemplateInput } from './inputs/template.input.js';
import type { TemplateModel } from './models/template.model.js';

export function toTemplateModel(view: TemplateView): TemplateModel {
  return {
    id: view.id,
    name: view.name,
    imageName: view.imageName,
    dockerArgs: view.dockerArgs,
    containerDiskInGb: view.containerDiskInGb,
    volumeInGb: view.volumeInGb,
    volumeMountPath: view.volumeMountPath,
    ports: view.ports.join(','),
    env: Object.entries(view.env).map(([key, value]) => ({ key, value })),
    isServerless: view.isServerless,
    containerRegistryAuthId: view.containerRegistryAuthId,
    readme: view.readme,
    isPublic: view.isPublic,
  };
}

/** `"8888/http, 22/tcp"` → `["8888/http", "22/tcp"]`; 422 naming each entry that is not a port. */
function parsePorts(ports: string): string[] {
  const list = ports
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const bad = list.filter((p) => !PORT_SPEC.test(p));
  if (bad.length || list.length > 32) {
    throw new DomainError(ErrorCode.ValidationFailed, 'the request failed validation', [
      ...bad.map((p) => `ports: ${JSON.stringify(p)} is not <number>/http or <number>/tcp`),
      ...(list.length > 32 ? ['ports must list at most 32 ports'] : []),
    ]);
  }
  return list;
}

/** The fields of the input as the REST use cases name them; absent stays absent, "" credential means none. */
export function toTemplateFields(input: SaveTemplateInput): UpdateTemplateDto & CreateTemplateDto {
  const registry = input.containerRegistryAuthId;
  return {
    name: input.name,
    imageName: input.imageName,
    ...(input.dockerArgs != null ? { dockerArgs: input.dockerArgs } : {}),
    ...(input.containerDiskInGb != null ? { containerDiskInGb: input.containerDiskInGb } : {}),
    ...(input.volumeInGb != null ? { volumeInGb: input.volumeInGb } : {}),
    ...(input.volumeMountPath != null ? { volumeMountPath: input.volumeMountPath } : {}),
    ...(input.ports != null ? { ports: parsePorts(input.ports) } : {}),
    ...(input.env != null ? { env: Object.fromEntries(input.env.map((e) => [e.key, e.value])) } : {}),
    ...(input.isServerless != null ? { isServerless: input.isServerless } : {}),
    ...(input.readme != null ? { readme: input.readme } : {}),
    ...(registry ? { containerRegistryAuthId: registry } : {}),
  };
}

/** `saveTemplate` with an id: the given fields replace the template's; an empty credential removes it. */
export function toTemplateUpdate(input: SaveTemplateInput): UpdateTemplateDto {
  const registry = input.containerRegistryAuthId;
  return {
    ...toTemplateFields(input),
    ...(registry != null ? { containerRegistryAuthId: registry || null } : {}),
  };
}
