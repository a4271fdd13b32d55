import { Injectable } from '@nestjs/common';
import { Subjects, type RegistryAuthView, type UpdateRegistryAuthCommand } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { ownedRegistryAuth } from '../registry-auth.access.js';
import { toRegistryAuthView } from '../registry-auth.mapper.js';
import { RegistryAuthRepository } from '../registry-auth.repository.js';

/**
 * Replaces a credential's username and sealed password (the name is its identity for clients and stays). The
 * row is locked like a delete, so a pod being created at the same moment pulls with either the old or the new
 * pair, never half of each.
 */
@Injectable()
export class UpdateRegistryAuthHandler {
  constructor(private readonly repository: RegistryAuthRepository) {}

  @CommandHandler(Subjects.registryAuth.update)
  async handle(ctx: CommandContext<UpdateRegistryAuthCommand>): Promise<RegistryAuthView> {
    const { envelope, payload, manager } = ctx;
    const entity = ownedRegistryAuth(
      await this.repository.lockById(payload.id, manager, 'update'),
      payload.id,
      envelope.actor,
    );
    entity.username = payload.username;
    entity.passwordSealed = payload.passwordSealed;
    await this.repository.updateSecret(entity, manager);
    return toRegistryAuthView(entity);
  }
}
