import { Injectable } from '@nestjs/common';
import { Subjects, type JobAccepted, type SetJobTtlCommand } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { visibleJob } from '../job.rules.js';
import { JobsRepository } from '../jobs.repository.js';

/** GET /status?ttl=: the job (and later its result) is kept `ttl` ms from now. */
@Injectable()
export class SetJobTtlHandler {
  constructor(private readonly jobs: JobsRepository) {}

  @CommandHandler(Subjects.job.setTtl)
  async handle(ctx: CommandContext<SetJobTtlCommand>): Promise<JobAccepted> {
    const { payload, manager, now } = ctx;
    const job = visibleJob(
      await this.jobs.lockById(payload.jobId, manager),
      payload.endpointId,
      payload.jobId,
      now,
    );
    job.ttlMs = payload.ttlMs;
    job.expiresAt = new Date(now.getTime() + payload.ttlMs);
    await this.jobs.save(job, manager);
    return { id: job.id, status: job.status };
  }
}
