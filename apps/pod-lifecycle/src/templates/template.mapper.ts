import { maskEnv, type TemplateView } from '@app/contracts';
import type { TemplateEntity } from './template.entity.js';

export function toTemplateView(entity: TemplateEntity): TemplateView {
  return {
    id: entity.id,
    name: entity.name,
    imageName: entity.image,
    dockerArgs: entity.args,
    env: maskEnv(entity.env),
    ports: entity.ports,
    containerDiskInGb: entity.containerDiskGb,
    volumeInGb: entity.volumeGb,
    volumeMountPath: entity.volumeMountPath,
    isServerless: entity.isServerless,
    containerRegistryAuthId: entity.registryAuthId,
    readme: entity.readme,
    userId: entity.ownerId,
    isPublic: false,
    createdAt: entity.createdAt.toISOString(),
  };
}
