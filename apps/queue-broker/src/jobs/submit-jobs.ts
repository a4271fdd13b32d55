import { Injectable } from '@nestjs/common';
import type { TakeBlobRef, TakeJobsCommand, TakeResult } from '@app/contracts';
import type { CommandContext } from '@app/messaging';
import { JobEventBatch } from './job-event-batch.js';
import { JobLifecycle } from './job-lifecycle.js';
import { JobTakes, takenJobIds } from './job-takes.js';
import type { JobEntity } from './job.entity.js';
import { JobsRepository } from './jobs.repository.js';

/**
 * What every submit does, one job or a batch of them (`job.cmd.submit`, `job.cmd.submit-many`): the jobs are
 * inserted IN_QUEUE in one statement, in the order given, and announced in one `job.evt.queued-many` (a batch of one
 * as a `job.evt.queued`: job-event-batch.ts). A piggy-backed take (a worker's long poll waiting at the edge) leases
 * in the same transaction, as that worker's own take would have (the oldest queued jobs first, so possibly not these
 * ones); a job it leased at once is not announced as queued: nobody else need be woken for it.
 */
@Injectable()
export class SubmitJobs {
  constructor(
    private readonly jobs: JobsRepository,
    private readonly lifecycle: JobLifecycle,
    private readonly takes: JobTakes,
  ) {}

  async submit(
    ctx: CommandContext<unknown>,
    jobs: readonly JobEntity[],
    take?: TakeJobsCommand,
  ): Promise<TakeResult | TakeBlobRef | undefined> {
    await this.jobs.insertMany(jobs, ctx.manager);
    const taken = take ? await this.takes.take(ctx, take, ctx.decided) : undefined;
    const leased = new Set(taken ? takenJobIds(taken) : []);
    const events = new JobEventBatch(ctx);
    for (const job of jobs) if (!leased.has(job.id)) await this.lifecycle.queued(events.tx, job);
    await events.flush();
    return taken;
  }
}
