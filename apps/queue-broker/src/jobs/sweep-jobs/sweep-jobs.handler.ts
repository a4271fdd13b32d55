import { Injectable } from '@nestjs/common';
import { Subjects, type SweepJobsCommand } from '@app/contracts';
import { lostWorkerEntry } from '../lost-worker-entry.js';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { WorkerStartsRepository } from '../../metrics/worker-starts.repository.js';
import { QueueBrokerConfig } from '../../queue-broker.config.js';
import { JobHistoryRepository } from '../job-history/job-history.repository.js';
import { JobLifecycle } from '../job-lifecycle.js';
import { JobsRepository } from '../jobs.repository.js';
import { WorkerRoster, type LostWorker } from '../worker-roster.js';

const DAY_MS = 24 * 3600_000;

/**
 * The broker's timer, as a recorded command (its time is the envelope's, so a replay does the same): workers that
 * stopped calling lose their leases (jobs queued again, or FAILED after JOB_MAX_ATTEMPTS), running jobs past their
 * executionTimeout and jobs past their ttl end TIMED_OUT (their workers hear it through job-stop), and expired
 * results are deleted (what stays of the jobs moves to their history, docs/adr/0042). Recorded on a preemption or a host's loss (hand-back-leases), it also names the workers whose
 * pods were preempted, or were on a host that became UNHEALTHY or GONE: they are lost at once and their leases handed
 * back the same way, without waiting for their silence.
 */
@Injectable()
export class SweepJobsHandler {
  constructor(
    private readonly jobs: JobsRepository,
    private readonly workers: WorkerRoster,
    private readonly lifecycle: JobLifecycle,
    private readonly config: QueueBrokerConfig,
    private readonly starts: WorkerStartsRepository,
    private readonly history: JobHistoryRepository,
  ) {}

  @CommandHandler(Subjects.job.sweep)
  async handle(ctx: CommandContext<SweepJobsCommand>): Promise<Record<string, number>> {
    const { manager, now } = ctx;
    const result: Record<string, number> = {
      lostWorkers: 0,
      requeued: 0,
      failed: 0,
      timedOut: 0,
      outlived: 0,
      deleted: 0,
    };
    const preempted = ctx.payload.preemptedWorkerIds ?? [];
    if (preempted.length) {
      const gone = await this.workers.markGone(preempted, now, manager);
      // Only in the answer of a sweep that names them: a timer's sweep answers as it always did (a rebuild compares).
      result.preemptedWorkers = gone.length;
      // Every job leased to one of them, even one leased after the preemption, before this command (its container
      // runs until the runtime stops it): none of them can finish there.
      await this.handBack(ctx, gone, preempted, result, {
        audit: "the worker's pod was preempted",
        job: (workerId) => `worker ${workerId}'s pod was preempted while running the job`,
      });
    }
    const lostHost = ctx.payload.lostHost;
    if (lostHost?.workerIds.length) {
      const { hostId, state, workerIds } = lostHost;
      const gone = await this.workers.markGone(workerIds, now, manager);
      // As for a preemption: only in the answer of a sweep that names them.
      result.hostLostWorkers = gone.length;
      const became = `host ${hostId} became ${state}${lostHost.reason ? ` (${lostHost.reason})` : ''}`;
      await this.handBack(ctx, gone, workerIds, result, {
        audit: `the worker's ${became}`,
        job: (workerId) => `worker ${workerId}'s ${became} while it ran the job`,
      });
    }
    if (ctx.payload.detectLostWorkers) {
      const lostBefore = new Date(now.getTime() - this.config.WORKER_LOST_AFTER_MS);
      const lost = await this.workers.markLost(lostBefore, now, manager);
      result.lostWorkers = lost.length;
      const silence = this.config.WORKER_LOST_AFTER_MS;
      await this.handBack(
        ctx,
        lost,
        lost.map((w) => w.id),
        result,
        {
          audit: `the worker made no call for ${silence} ms`,
          job: (workerId) =>
            `worker ${workerId} stopped calling (nothing for ${silence} ms) while running the job`,
        },
      );
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
    // Deleted from the jobs (so /status answers 404 as before), what stays of them moved to the history; the
    // history's own expiry is not in the answer, which a rebuild compares with the one recorded before it existed.
    result.deleted = await this.history.archiveExpired(now, manager);
    await this.history.purge(new Date(now.getTime() - this.config.JOB_HISTORY_RETENTION_MS), manager);
    await this.workers.deleteLostBefore(new Date(now.getTime() - DAY_MS), manager);
    await this.starts.prune(new Date(now.getTime() - DAY_MS), manager);
    await this.jobs.deleteCountersBefore(
      new Date(now.getTime() - this.config.HEALTH_WINDOW_MS - 3600_000),
      manager,
    );
    return result;
  }

  /**
   * Enters each worker found lost in its account's trail (a machine's decision, with `why.audit`; unknown account:
   * none), then puts the jobs leased to `leasedTo` back in the queue with `why.job` (FAILED after JOB_MAX_ATTEMPTS).
   * A done the worker posts later finds its job no longer leased to it: ignored, so no job completes twice.
   */
  private async handBack(
    ctx: CommandContext<SweepJobsCommand>,
    lost: LostWorker[],
    leasedTo: string[],
    result: Record<'requeued' | 'failed', number>,
    why: { audit: string; job: (workerId: string | null) => string },
  ): Promise<void> {
    for (const worker of lost) {
      const entry = lostWorkerEntry(ctx.envelope, worker, why.audit);
      if (entry) await ctx.emit(Subjects.audit.recorded, entry, `lost/${worker.id}`);
    }
    for (const job of await this.jobs.lockLeasedTo(leasedTo, ctx.manager)) {
      const outcome = await this.lifecycle.requeue(
        ctx,
        job,
        'WORKER_LOST',
        why.job(job.leaseWorkerId),
        this.config.JOB_MAX_ATTEMPTS,
      );
      result[outcome] += 1;
    }
  }
}
