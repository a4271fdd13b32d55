import { Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCode,
  Subjects,
  deriveId,
  type CreateTemplateCommand,
  type TemplateView,
} from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { ownedRegistryAuth } from '../../registry-auth/registry-auth.access.js';
import { RegistryAuthRepository } from '../../registry-auth/registry-auth.repository.js';
import { TemplateEntity } from '../template.entity.js';
import { toTemplateView } from '../template.mapper.js';
import { TemplateRepository } from '../template.repository.js';

export const DEFAULT_CONTAINER_DISK_GB = 20;

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
    const entity = Object.assign(new TemplateEntity(), {
      id: deriveId(envelope.commandId),
      ownerId,
      name: payload.name,
      image: payload.imageName,
      args: payload.dockerArgs ?? '',
      env: payload.env ?? {},
      ports: payload.ports ?? [],
      containerDiskGb: payload.containerDiskInGb ?? DEFAULT_CONTAINER_DISK_GB,
      volumeMountPath: payload.volumeMountPath ?? null,
      isServerless: payload.isServerless ?? false,
      registryAuthId: payload.containerRegistryAuthId ?? null,
      readme: payload.readme ?? '',
      createdAt: ctx.now,
    });
    await this.templates.insert(entity, manager);
    await ctx.emit(Subjects.template.created, { id: entity.id, ownerId, name: entity.name });
    return toTemplateView(entity);
  }
}
