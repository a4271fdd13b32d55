import { Injectable } from '@nestjs/common';
import { Subjects, type JobAccepted, type JobRefCommand } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { JobLifecycle } from '../job-lifecycle.js';
import { assertCancellable, visibleJob } from '../job.rules.js';
import { JobsRepository } from '../jobs.repository.js';

/** A queued job is removed before it starts; a running one is stopped (its worker hears it through job-stop). */
@Injectable()
export class CancelJobHandler {
  constructor(
    private readonly jobs: JobsRepository,
    private readonly lifecycle: JobLifecycle,
  ) {}

  @CommandHandler(Subjects.job.cancel)
  async handle(ctx: CommandContext<JobRefCommand>): Promise<JobAccepted> {
    const { payload, manager, now } = ctx;
    const job = visibleJob(
      await this.jobs.lockById(payload.jobId, manager),
      payload.endpointId,
      payload.jobId,
      now,
    );
    assertCancellable(job);
    await this.lifecycle.finish(ctx, job, 'CANCELLED');
    return { id: job.id, status: job.status };
  }
}
