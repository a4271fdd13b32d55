import { Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCode,
  Subjects,
  endpointDeleteRefusal,
  type DeleteEndpointCommand,
  type EndpointDeletedEvent,
} from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { ownedEndpoint } from '../endpoint.access.js';
import { EndpointsRepository } from '../endpoints.repository.js';

/**
 * Deletes an endpoint whose workersMin and workersMax are both 0 (INVALID_STATE otherwise, as the interface
 * asks). The endpoint disappears for users at once; the control loop then terminates its workers, purges its
 * queue and removes the row (so a crash in between is healed on the next tick).
 */
@Injectable()
export class DeleteEndpointHandler {
  constructor(private readonly endpoints: EndpointsRepository) {}

  @CommandHandler(Subjects.endpoint.delete)
  async handle(ctx: CommandContext<DeleteEndpointCommand>): Promise<null> {
    const { envelope, payload, manager } = ctx;
    const entity = ownedEndpoint(
      await this.endpoints.lockLive(payload.id, manager),
      payload.id,
      envelope.actor,
    );
    if (entity.workersMin !== 0 || entity.workersMax !== 0) {
      throw new DomainError(ErrorCode.InvalidState, endpointDeleteRefusal(entity, payload.vocabulary));
    }
    entity.deletedAt = ctx.now;
    entity.updatedAt = ctx.now;
    await this.endpoints.save(entity, manager);
    await ctx.emit(Subjects.endpoint.deleted, {
      id: entity.id,
      ownerId: entity.ownerId,
    } satisfies EndpointDeletedEvent);
    return null;
  }
}
