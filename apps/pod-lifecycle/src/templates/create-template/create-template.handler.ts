import { Injectable } from '@nestjs/common';
import {
  DEFAULT_CONTAINER_DISK_GB,
  DEFAULT_VOLUME_MOUNT_PATH,
  DomainError,
  ErrorCode,
  Subjects,
  deriveId,
  type CreateTemplateCommand,
  type CreateTemplateDto,
  type TemplateView,
} from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { ownedRegistryAuth } from '../../registry-auth/registry-auth.access.js';
import { RegistryAuthRepository } from '../../registry-auth/registry-auth.repository.js';
import { TemplateEntity } from '../template.entity.js';
import { toTemplateView } from '../template.mapper.js';
import { TemplateRepository } from '../template.repository.js';

/** A template from the fields of a create (a user's command, or an entry of the catalog file), defaults filled. */
export function newTemplate(
  fields: CreateTemplateDto,
  identity: Pick<TemplateEntity, 'id' | 'ownerId' | 'createdAt'>,
): TemplateEntity {
  return Object.assign(new TemplateEntity(), {
    ...identity,
    name: fields.name,
    image: fields.imageName,
    args: fields.dockerArgs ?? '',
    env: fields.env ?? {},
    ports: fields.ports ?? [],
    containerDiskGb: fields.containerDiskInGb ?? DEFAULT_CONTAINER_DISK_GB,
    volumeGb: fields.volumeInGb ?? 0,
    volumeMountPath: fields.volumeMountPath ?? (fields.volumeInGb ? DEFAULT_VOLUME_MOUNT_PATH : null),
    isServerless: fields.isServerless ?? false,
    registryAuthId: fields.containerRegistryAuthId ?? null,
    readme: fields.readme ?? '',
  } satisfies TemplateEntity);
}

@Injectable()
export class CreateTemplateHandler {
  constructor(
    private readonly templates: TemplateRepository,
    private readonly registryAuths: RegistryAuthRepository,
  ) {}

  @CommandHandler(Subjects.template.create)
  async handle(ctx: CommandContext<CreateTemplateCommand>): Promise<TemplateView> {
    const { envelope, payload, manager } = ctx;
    const ownerId = envelope.actor.userId;
    if (await this.templates.findByOwnerAndName(ownerId, payload.name, manager)) {
      throw new DomainError(ErrorCode.Conflict, `you already have a template named ${payload.name}`);
    }
    if (payload.containerRegistryAuthId) {
      // Locked so that a concurrent delete of the credential waits for this template (and then sees it).
      const id = payload.containerRegistryAuthId;
      ownedRegistryAuth(await this.registryAuths.lockById(id, manager, 'share'), id, envelope.actor);
    }
    const entity = newTemplate(payload, { id: deriveId(envelope.commandId), ownerId, createdAt: ctx.now });
    await this.templates.insert(entity, manager);
    await ctx.emit(Subjects.template.created, { id: entity.id, ownerId, name: entity.name });
    return toTemplateView(entity);
  }
}
