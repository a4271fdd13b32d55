import { Injectable } from '@nestjs/common';
import { Subjects, isTakeDecision, type PurgeOutcome, type PurgeQueueCommand } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { JobLifecycle } from '../job-lifecycle.js';
import { JobsRepository } from '../jobs.repository.js';

/**
 * Removes every job still waiting in the queue; running jobs go on. A purged job ends CANCELLED (with the reason
 * in `error`), so it still reaches exactly one terminal state and its webhook is called. Jobs go in id order; the
 * outcome names them, and a rebuild removes exactly those (`ctx.decided`, ADR 28): which submits had committed when
 * the purge's statement ran is timing, not the order of the commands.
 */
@Injectable()
export class PurgeQueueHandler {
  constructor(
    private readonly jobs: JobsRepository,
    private readonly lifecycle: JobLifecycle,
  ) {}

  @CommandHandler(Subjects.job.purge)
  async handle(ctx: CommandContext<PurgeQueueCommand>): Promise<PurgeOutcome> {
    const decided = isTakeDecision(ctx.decided) ? ctx.decided.jobIds : undefined;
    const queued = await this.jobs.lockAllQueued(ctx.payload.endpointId, ctx.manager, decided);
    for (const job of queued) {
      await this.lifecycle.finish(ctx, job, 'CANCELLED', { error: 'removed from the queue by purge-queue' });
    }
    return { removed: queued.length, status: 'completed', jobIds: queued.map((job) => job.id) };
  }
}
