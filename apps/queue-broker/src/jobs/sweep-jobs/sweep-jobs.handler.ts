import { Injectable } from '@nestjs/common';
import { Subjects, type SweepJobsCommand } from '@app/contracts';
import { lostWorkerEntry } from '../lost-worker-entry.js';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { QueueBrokerConfig } from '../../queue-broker.config.js';
import { JobLifecycle } from '../job-lifecycle.js';
import { JobsRepository } from '../jobs.repository.js';
import { WorkerRoster } from '../worker-roster.js';

const DAY_MS = 24 * 3600_000;

/**
 * The broker's timer, as a recorded command (its time is the envelope's, so a replay does the same): workers that
 * stopped calling lose their leases (jobs queued again, or FAILED after JOB_MAX_ATTEMPTS), running jobs past their
 * executionTimeout and jobs past their ttl end TIMED_OUT (their workers hear it through job-stop), and expired
 * results are deleted.
 */
@Injectable()
export class SweepJobsHandler {
  constructor(
    private readonly jobs: JobsRepository,
    private readonly workers: WorkerRoster,
    private readonly lifecycle: JobLifecycle,
    private readonly config: QueueBrokerConfig,
  ) {}

  @CommandHandler(Subjects.job.sweep)
  async handle(ctx: CommandContext<SweepJobsCommand>): Promise<Record<string, number>> {
    const { manager, now } = ctx;
    const result = { lostWorkers: 0, requeued: 0, failed: 0, timedOut: 0, outlived: 0, deleted: 0 };
    if (ctx.payload.detectLostWorkers) {
      const lostBefore = new Date(now.getTime() - this.config.WORKER_LOST_AFTER_MS);
      const lost = await this.workers.markLost(lostBefore, now, manager);
      result.lostWorkers = lost.length;
      // A machine's decision, in the trail of the account each worker worked for (unknown: not registered).
      for (const worker of lost) {
        const entry = lostWorkerEntry(ctx.envelope, worker, this.config.WORKER_LOST_AFTER_MS);
        if (entry) await ctx.emit(Subjects.audit.recorded, entry, `lost/${worker.id}`);
      }
      for (const job of await this.jobs.lockLeasedTo(
        lost.map((w) => w.id),
        manager,
      )) {
        const outcome = await this.lifecycle.requeue(
          ctx,
          job,
          'WORKER_LOST',
          `worker ${job.leaseWorkerId} stopped calling (nothing for ${this.config.WORKER_LOST_AFTER_MS} ms) while running the job`,
          this.config.JOB_MAX_ATTEMPTS,
        );
        result[outcome] += 1;
      }
    }
    for (const job of await this.jobs.lockTimedOut(now, manager)) {
      await this.lifecycle.finish(ctx, job, 'TIMED_OUT', {
        error: `execution timeout of ${job.executionTimeoutMs} ms exceeded`,
      });
      result.timedOut += 1;
    }
    for (const job of await this.jobs.lockOutlived(now, manager)) {
      await this.lifecycle.finish(ctx, job, 'TIMED_OUT', {
        error: `the job's ttl of ${job.ttlMs ?? 'default'} ms passed before it finished`,
      });
      result.outlived += 1;
    }
    result.deleted = await this.jobs.deleteExpired(now, manager);
    await this.workers.deleteLostBefore(new Date(now.getTime() - DAY_MS), manager);
    await this.jobs.deleteCountersBefore(
      new Date(now.getTime() - this.config.HEALTH_WINDOW_MS - 3600_000),
      manager,
    );
    return result;
  }
}
