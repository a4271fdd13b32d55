import { Injectable } from '@nestjs/common';
import { Subjects, isTakeDecision, type CollectStopsCommand, type StopsResult } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { JobsRepository } from '../../jobs/jobs.repository.js';
import { workerCallTime } from '../../jobs/job.rules.js';
import { WorkersRepository } from '../workers.repository.js';

/**
 * job-stop: the jobs this worker must abandon (cancelled, timed out), each handed out once. Which of them a collect
 * sees depends on which cancels had committed when its statement ran; in a rebuild it collects exactly what its
 * recorded outcome shows (`ctx.decided`, ADR 28).
 */
@Injectable()
export class CollectStopsHandler {
  constructor(
    private readonly jobs: JobsRepository,
    private readonly workers: WorkersRepository,
  ) {}

  @CommandHandler(Subjects.worker.collectStops)
  async handle(ctx: CommandContext<CollectStopsCommand>): Promise<StopsResult> {
    const { payload, manager, now } = ctx;
    await this.workers.touch(
      payload.endpointId,
      payload.workerId,
      workerCallTime(payload.requestedAt, now),
      manager,
    );
    const decided = isTakeDecision(ctx.decided) ? ctx.decided.jobIds : undefined;
    return { jobsToStop: await this.jobs.collectStops(payload.workerId, now, manager, decided) };
  }
}
