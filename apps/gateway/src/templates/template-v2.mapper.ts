import type {
  CreateTemplateDto,
  CreateTemplateV2Dto,
  TemplateV2View,
  TemplateView,
  UpdateTemplateDto,
  UpdateTemplateV2Dto,
} from '@app/contracts';

/**
 * `/v2/templates` speaks RunPod's v2 names; the use cases (and the owner's commands) speak v1's. Only the names
 * differ: absent fields stay absent, so a v2 PATCH changes exactly what a v1 PATCH with the same fields would.
 */
export function fromCreateV2(dto: CreateTemplateV2Dto): CreateTemplateDto {
  return {
    name: dto.name,
    imageName: dto.image,
    ...fromFieldsV2(dto),
    ...(dto.registry ? { containerRegistryAuthId: dto.registry } : {}),
  };
}

export function fromUpdateV2(dto: UpdateTemplateV2Dto): UpdateTemplateDto {
  return {
    ...(dto.name != null ? { name: dto.name } : {}),
    ...(dto.image != null ? { imageName: dto.image } : {}),
    ...fromFieldsV2(dto),
    ...(dto.registry !== undefined ? { containerRegistryAuthId: dto.registry } : {}),
  };
}

function fromFieldsV2(
  dto: CreateTemplateV2Dto | UpdateTemplateV2Dto,
): Omit<UpdateTemplateDto, 'name' | 'imageName' | 'containerRegistryAuthId'> {
  return {
    ...(dto.args != null ? { dockerArgs: dto.args } : {}),
    ...(dto.disk != null ? { containerDiskInGb: dto.disk } : {}),
    ...(dto.env != null ? { env: dto.env } : {}),
    ...(dto.ports != null ? { ports: dto.ports } : {}),
    ...(dto.mounts?.persistent
      ? { volumeInGb: dto.mounts.persistent.size, volumeMountPath: dto.mounts.persistent.path }
      : {}),
    ...(dto.serverless != null ? { isServerless: dto.serverless } : {}),
    ...(dto.readme != null ? { readme: dto.readme } : {}),
  };
}

export function toTemplateV2View(view: TemplateView): TemplateV2View {
  return {
    id: view.id,
    name: view.name,
    image: view.imageName,
    args: view.dockerArgs,
    disk: view.containerDiskInGb,
    env: view.env,
    ports: view.ports,
    registry: view.containerRegistryAuthId,
    mounts: view.volumeInGb
      ? { persistent: { size: view.volumeInGb, path: view.volumeMountPath ?? '/workspace' } }
      : {},
    serverless: view.isServerless,
    public: view.isPublic,
    readme: view.readme,
    createdAt: view.createdAt,
  };
}
