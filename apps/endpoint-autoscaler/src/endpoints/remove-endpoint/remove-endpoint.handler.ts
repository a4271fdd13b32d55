import { Injectable } from '@nestjs/common';
import { DomainError, ErrorCode, Subjects, type RemoveEndpointCommand } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { ownedEndpoint } from '../endpoint.access.js';
import { EndpointsRepository } from '../endpoints.repository.js';

/**
 * Removes the record of an endpoint deleted earlier, once the control loop has seen its workers gone and its queue
 * purged. The loop used to delete the row itself, which a replay of the recorded commands never did: a rebuild kept
 * every deleted endpoint's row. Only a deleted endpoint's record goes (INVALID_STATE for a live one).
 */
@Injectable()
export class RemoveEndpointHandler {
  constructor(private readonly endpoints: EndpointsRepository) {}

  @CommandHandler(Subjects.endpoint.remove)
  async handle(ctx: CommandContext<RemoveEndpointCommand>): Promise<null> {
    const { envelope, payload, manager } = ctx;
    const entity = ownedEndpoint(
      await this.endpoints.lockAny(payload.id, manager),
      payload.id,
      envelope.actor,
    );
    if (!entity.deletedAt) {
      throw new DomainError(
        ErrorCode.InvalidState,
        `endpoint ${entity.id} is not deleted: only a deleted endpoint's record is removed`,
      );
    }
    await this.endpoints.purgeDeleted(entity.id, manager);
    return null;
  }
}
