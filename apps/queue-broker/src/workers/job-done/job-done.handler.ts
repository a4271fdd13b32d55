import { Injectable } from '@nestjs/common';
import { Subjects, type JobDoneCommand, type JobDoneResult } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { JobsRepository } from '../../jobs/jobs.repository.js';
import { JobResults } from '../job-results.js';
import { WorkersRepository } from '../workers.repository.js';

/**
 * job-done: a worker's final result or progress update for one job (what it does: job-results.ts). Idempotent and
 * never a refusal.
 */
@Injectable()
export class JobDoneHandler {
  constructor(
    private readonly jobs: JobsRepository,
    private readonly workers: WorkersRepository,
    private readonly results: JobResults,
  ) {}

  @CommandHandler(Subjects.worker.done)
  async handle(ctx: CommandContext<JobDoneCommand>): Promise<JobDoneResult> {
    const { payload, manager, now, envelope } = ctx;
    // The worker's heartbeat goes in the job's locking statement (one statement for both), its row locked first.
    const touch = this.workers.touchPart(payload.endpointId, payload.workerId, now, {
      recycle: payload.stopPod,
    });
    const job = await this.jobs.lockById(payload.jobId, manager, touch);
    return this.results.apply(ctx, payload, payload, job, envelope.commandId);
  }
}
