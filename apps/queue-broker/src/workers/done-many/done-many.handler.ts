import { Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCode,
  Subjects,
  type JobDoneManyCommand,
  type JobDoneManyResult,
} from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { JobEventBatch } from '../../jobs/job-event-batch.js';
import { JobWriteBatch } from '../../jobs/job-write-batch.js';
import { JobsRepository } from '../../jobs/jobs.repository.js';
import { JobResults } from '../job-results.js';
import { WorkersRepository } from '../workers.repository.js';

/**
 * The job-done posts of one worker that a gateway batched into one command (docs/adr/0013, "Batched results"): each
 * is applied as its own `worker.cmd.done` would be, in the order given, in the command's one transaction, and
 * answered in that order. One heartbeat for the worker; every job named is read and locked in one statement, in id
 * order. The jobs it finishes are announced in one `job.evt.changed-many` (job-event-batch.ts). Their rows are
 * written in one statement at the end: nothing here reads a job after the first write.
 */
@Injectable()
export class DoneManyHandler {
  constructor(
    private readonly jobs: JobsRepository,
    private readonly workers: WorkersRepository,
    private readonly results: JobResults,
  ) {}

  @CommandHandler(Subjects.worker.doneMany)
  async handle(ctx: CommandContext<JobDoneManyCommand>): Promise<JobDoneManyResult> {
    const { payload, manager, now } = ctx;
    if (new Set(payload.dones.map((post) => post.id)).size !== payload.dones.length) {
      throw new DomainError(ErrorCode.ValidationFailed, 'the posts of a done-many must have distinct ids');
    }
    // The worker's heartbeat goes in the jobs' locking statement (one statement for both), its row locked first.
    const touch = this.workers.touchPart(payload.endpointId, payload.workerId, now, {
      recycle: payload.dones.some((post) => post.stopPod),
    });
    const jobs = await this.jobs.lockByIds(
      [...new Set(payload.dones.map((post) => post.jobId))],
      manager,
      touch,
    );
    const events = new JobEventBatch(ctx);
    const writes = new JobWriteBatch(this.jobs, manager, now);
    const tx = { ...events.tx, writes };
    const dones: JobDoneManyResult['dones'] = [];
    for (const post of payload.dones) {
      dones.push(await this.results.apply(tx, payload, post, jobs.get(post.jobId) ?? null, post.id));
    }
    await writes.flush();
    await events.flush();
    return { dones };
  }
}
