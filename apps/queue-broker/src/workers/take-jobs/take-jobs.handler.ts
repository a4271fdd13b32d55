import { Injectable } from '@nestjs/common';
import { Subjects, type TakeBlobRef, type TakeJobsCommand, type TakeResult } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { JobTakes } from '../../jobs/job-takes.js';

/**
 * job-take / job-take-batch: leases the oldest queued jobs of the endpoint to the worker (JobTakes: the lease, the
 * worker's liveness, and a replay's recorded decision). An empty answer is normal: the edge long-polls. This runs
 * for every poll of every worker that the edge could not serve from a submit (SubmitJobCommand.take).
 */
@Injectable()
export class TakeJobsHandler {
  constructor(private readonly takes: JobTakes) {}

  @CommandHandler(Subjects.worker.take)
  handle(ctx: CommandContext<TakeJobsCommand>): Promise<TakeResult | TakeBlobRef> {
    return this.takes.take(ctx, ctx.payload, ctx.decided);
  }
}
