import { Injectable } from '@nestjs/common';
import { DomainError, ErrorCode, Subjects, type DeleteRegistryAuthCommand } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { ownedRegistryAuth } from '../registry-auth.access.js';
import { RegistryAuthRepository } from '../registry-auth.repository.js';
import { PodsUsingRegistryAuth, TemplatesUsingRegistryAuth } from '../registry-auth.users.js';

/**
 * Deletes a credential unless a template or a pod that is not terminated still pulls with it (400 IN_USE).
 * The row is locked first, so a template or pod being created with the credential at the same moment either
 * commits before (and is seen here) or finds the credential gone (404).
 */
@Injectable()
export class DeleteRegistryAuthHandler {
  constructor(
    private readonly repository: RegistryAuthRepository,
    private readonly templates: TemplatesUsingRegistryAuth,
    private readonly pods: PodsUsingRegistryAuth,
  ) {}

  @CommandHandler(Subjects.registryAuth.delete)
  async handle(ctx: CommandContext<DeleteRegistryAuthCommand>): Promise<null> {
    const { envelope, payload, manager } = ctx;
    const entity = ownedRegistryAuth(
      await this.repository.lockById(payload.id, manager, 'update'),
      payload.id,
      envelope.actor,
    );
    const templateId = await this.templates.registryAuthInUse(entity.id, manager);
    if (templateId) {
      throw new DomainError(
        ErrorCode.InUse,
        `container registry credential ${entity.id} is used by template ${templateId}; delete the template first`,
      );
    }
    const podId = await this.pods.registryAuthInUse(entity.id, manager);
    if (podId) {
      throw new DomainError(
        ErrorCode.InUse,
        `container registry credential ${entity.id} is used by pod ${podId}; terminate the pod first`,
      );
    }
    await this.repository.delete(entity.id, manager);
    await ctx.emit(Subjects.registryAuth.deleted, { id: entity.id, ownerId: entity.ownerId });
    return null;
  }
}
