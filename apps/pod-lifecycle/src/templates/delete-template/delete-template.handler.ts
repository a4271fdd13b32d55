import { Injectable } from '@nestjs/common';
import { DomainError, ErrorCode, Subjects, type DeleteTemplateCommand } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { RegistryAuthRepository } from '../../registry-auth/registry-auth.repository.js';
import { CatalogTemplates } from '../catalog-templates.js';
import { catalogTemplateIsReadOnly, ownedTemplate } from '../template.access.js';
import { TemplateRepository } from '../template.repository.js';
import { PodsUsingTemplate } from '../template.users.js';

/**
 * Deletes a template unless something still uses it (400 IN_USE): a pod that is not terminated (standalone or a
 * cluster member). Serverless endpoints live in endpoint-autoscaler: the gateway asks it before this command
 * (TemplatesService.delete), as it does the other cross-app checks. A public template of the catalog is the
 * operator's (403).
 */
@Injectable()
export class DeleteTemplateHandler {
  constructor(
    private readonly templates: TemplateRepository,
    private readonly pods: PodsUsingTemplate,
    private readonly catalog: CatalogTemplates,
    private readonly registryAuths: RegistryAuthRepository,
  ) {}

  @CommandHandler(Subjects.template.delete)
  async handle(ctx: CommandContext<DeleteTemplateCommand>): Promise<null> {
    const { envelope, payload, manager } = ctx;
    if (await this.catalog.find(payload.id)) throw catalogTemplateIsReadOnly(payload.id);
    const template = ownedTemplate(
      await this.templates.lockById(payload.id, manager, 'update'),
      payload.id,
      envelope.actor,
    );
    const podId = await this.pods.templateInUse(template.id, manager);
    if (podId) {
      throw new DomainError(
        ErrorCode.InUse,
        `template ${template.id} is used by pod ${podId}; terminate it first`,
      );
    }
    // Its credential's delete reads the templates using it under that credential's lock: taken here too, so the
    // two wait for each other and the delete's answer follows the order a rebuild applies them in.
    if (template.registryAuthId) await this.registryAuths.lockById(template.registryAuthId, manager, 'share');
    await this.templates.delete(template.id, manager);
    await ctx.emit(Subjects.template.deleted, { id: template.id, ownerId: template.ownerId });
    return null;
  }
}
