import { Injectable } from '@nestjs/common';
import { Subjects, type DeleteRegistryAuthCommand } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { ownedRegistryAuth } from '../registry-auth.access.js';
import { RegistryAuthRepository } from '../registry-auth.repository.js';

@Injectable()
export class DeleteRegistryAuthHandler {
  constructor(private readonly repository: RegistryAuthRepository) {}

  @CommandHandler(Subjects.registryAuth.delete)
  async handle(ctx: CommandContext<DeleteRegistryAuthCommand>): Promise<null> {
    const { envelope, payload, manager } = ctx;
    const entity = ownedRegistryAuth(
      await this.repository.findById(payload.id, manager),
      payload.id,
      envelope.actor,
    );
    await this.repository.delete(entity.id, manager);
    await ctx.emit(Subjects.registryAuth.deleted, { id: entity.id, ownerId: entity.ownerId });
    return null;
  }
}
