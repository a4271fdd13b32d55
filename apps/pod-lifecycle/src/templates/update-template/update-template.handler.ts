import { Injectable } from '@nestjs/common';
import {
  DEFAULT_VOLUME_MOUNT_PATH,
  DomainError,
  ErrorCode,
  Subjects,
  unmaskEnv,
  type TemplateView,
  type UpdateTemplateCommand,
} from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { ownedRegistryAuth } from '../../registry-auth/registry-auth.access.js';
import { RegistryAuthRepository } from '../../registry-auth/registry-auth.repository.js';
import { CatalogTemplates } from '../catalog-templates.js';
import { catalogTemplateIsReadOnly, ownedTemplate } from '../template.access.js';
import { toTemplateView } from '../template.mapper.js';
import { TemplateRepository } from '../template.repository.js';

/**
 * Changes the fields present in the command (PATCH semantics). The rules of create hold: the name stays unique
 * per owner, and a new credential must be the caller's (locked `share`, so a concurrent delete of it waits and
 * then sees this template). Pods and endpoints already created from the template keep what they copied. An
 * absent or null field is left alone, except the two that may be cleared: containerRegistryAuthId and
 * volumeMountPath (null removes them). A masked env value sent back keeps the value it stands for. A public template of the catalog is read-only (403).
 */
@Injectable()
export class UpdateTemplateHandler {
  constructor(
    private readonly templates: TemplateRepository,
    private readonly registryAuths: RegistryAuthRepository,
    private readonly catalog: CatalogTemplates,
  ) {}

  @CommandHandler(Subjects.template.update)
  async handle(ctx: CommandContext<UpdateTemplateCommand>): Promise<TemplateView> {
    const { envelope, payload, manager } = ctx;
    if (await this.catalog.find(payload.id)) throw catalogTemplateIsReadOnly(payload.id);
    const template = ownedTemplate(
      await this.templates.lockById(payload.id, manager, 'update'),
      payload.id,
      envelope.actor,
    );
    if (payload.name != null && payload.name !== template.name) {
      if (await this.templates.findByOwnerAndName(template.ownerId, payload.name, manager)) {
        throw new DomainError(ErrorCode.Conflict, `you already have a template named ${payload.name}`);
      }
      template.name = payload.name;
    }
    const registryId = payload.containerRegistryAuthId;
    if (registryId !== undefined && template.registryAuthId && registryId !== template.registryAuthId) {
      // The credential it stops using: a delete of that credential reads its users under its lock, so this change
      // and the delete wait for each other and the delete's answer follows the order a rebuild applies them in.
      await this.registryAuths.lockById(template.registryAuthId, manager, 'share');
    }
    if (registryId) {
      ownedRegistryAuth(
        await this.registryAuths.lockById(registryId, manager, 'share'),
        registryId,
        envelope.actor,
      );
    }
    if (registryId !== undefined) template.registryAuthId = registryId;
    if (payload.imageName != null) template.image = payload.imageName;
    if (payload.dockerArgs != null) template.args = payload.dockerArgs;
    // Clients send back the env they read, where secret-looking values are masked.
    if (payload.env != null) template.env = unmaskEnv(payload.env, template.env);
    if (payload.ports != null) template.ports = payload.ports;
    if (payload.containerDiskInGb != null) template.containerDiskGb = payload.containerDiskInGb;
    if (payload.volumeInGb != null) template.volumeGb = payload.volumeInGb;
    if (payload.volumeMountPath !== undefined) template.volumeMountPath = payload.volumeMountPath;
    if (template.volumeGb && !template.volumeMountPath) template.volumeMountPath = DEFAULT_VOLUME_MOUNT_PATH;
    if (payload.isServerless != null) template.isServerless = payload.isServerless;
    if (payload.readme != null) template.readme = payload.readme;
    await this.templates.save(template, manager);
    return toTemplateView(template);
  }
}
