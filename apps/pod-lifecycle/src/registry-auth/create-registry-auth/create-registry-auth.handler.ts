import { Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCode,
  Subjects,
  deriveId,
  type CreateRegistryAuthCommand,
  type RegistryAuthView,
} from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { RegistryAuthEntity } from '../registry-auth.entity.js';
import { toRegistryAuthView } from '../registry-auth.mapper.js';
import { RegistryAuthRepository } from '../registry-auth.repository.js';

@Injectable()
export class CreateRegistryAuthHandler {
  constructor(private readonly repository: RegistryAuthRepository) {}

  @CommandHandler(Subjects.registryAuth.create)
  async handle(ctx: CommandContext<CreateRegistryAuthCommand>): Promise<RegistryAuthView> {
    const { envelope, payload, manager } = ctx;
    const ownerId = envelope.actor.userId;
    if (await this.repository.findByOwnerAndName(ownerId, payload.name, manager)) {
      throw new DomainError(
        ErrorCode.Conflict,
        `you already have a container registry credential named ${payload.name}`,
      );
    }
    const entity = Object.assign(new RegistryAuthEntity(), {
      id: deriveId(envelope.commandId),
      ownerId,
      name: payload.name,
      username: payload.username,
      passwordSealed: payload.passwordSealed,
      createdAt: ctx.now,
    });
    await this.repository.insert(entity, manager);
    await ctx.emit(Subjects.registryAuth.created, { id: entity.id, ownerId, name: entity.name });
    return toRegistryAuthView(entity);
  }
}
