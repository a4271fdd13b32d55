import { Injectable } from '@nestjs/common';
import { Subjects, type JobAccepted, type JobRefCommand } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { JobLifecycle } from '../job-lifecycle.js';
import { assertRetryable, visibleJob } from '../job.rules.js';
import { JobsRepository } from '../jobs.repository.js';

/** FAILED or TIMED_OUT, result not expired → IN_QUEUE with the same id and input, output removed. */
@Injectable()
export class RetryJobHandler {
  constructor(
    private readonly jobs: JobsRepository,
    private readonly lifecycle: JobLifecycle,
  ) {}

  @CommandHandler(Subjects.job.retry)
  async handle(ctx: CommandContext<JobRefCommand>): Promise<JobAccepted> {
    const { payload, manager, now } = ctx;
    const job = visibleJob(
      await this.jobs.lockById(payload.jobId, manager),
      payload.endpointId,
      payload.jobId,
      now,
    );
    assertRetryable(job);
    await this.lifecycle.retry(ctx, job);
    return { id: job.id, status: job.status };
  }
}
