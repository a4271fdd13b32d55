import { Injectable } from '@nestjs/common';
import { Subjects, type RegisterWorkerCommand } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { WorkerStartsRepository } from '../../metrics/worker-starts.repository.js';
import { WorkersRepository } from '../workers.repository.js';

/**
 * The autoscaler started a worker pod: it counts as `initializing` in /health until it first asks for a job. The
 * times it carries (decided, placed: the command's time when not said) start the worker's cold start phases.
 */
@Injectable()
export class RegisterWorkerHandler {
  constructor(
    private readonly workers: WorkersRepository,
    private readonly starts: WorkerStartsRepository,
  ) {}

  @CommandHandler(Subjects.worker.register)
  async handle(ctx: CommandContext<RegisterWorkerCommand>): Promise<null> {
    // The autoscaler registers a worker as its endpoint's owner (its actor): the account the worker works for.
    const { endpointId, workerId, decidedAt, placedAt } = ctx.payload;
    await this.workers.register(endpointId, workerId, ctx.envelope.actor.userId, ctx.now, ctx.manager);
    const decided = decidedAt ? new Date(decidedAt) : null;
    await this.starts.placed(
      workerId,
      endpointId,
      decided,
      placedAt ? new Date(placedAt) : ctx.now,
      ctx.manager,
    );
    return null;
  }
}
