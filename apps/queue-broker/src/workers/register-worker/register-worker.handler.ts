import { Injectable } from '@nestjs/common';
import { Subjects, type RegisterWorkerCommand } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { WorkersRepository } from '../workers.repository.js';

/** The autoscaler started a worker pod: it counts as `initializing` in /health until it first asks for a job. */
@Injectable()
export class RegisterWorkerHandler {
  constructor(private readonly workers: WorkersRepository) {}

  @CommandHandler(Subjects.worker.register)
  async handle(ctx: CommandContext<RegisterWorkerCommand>): Promise<null> {
    // The autoscaler registers a worker as its endpoint's owner (its actor): the account the worker works for.
    const { endpointId, workerId } = ctx.payload;
    await this.workers.register(endpointId, workerId, ctx.envelope.actor.userId, ctx.now, ctx.manager);
    return null;
  }
}
