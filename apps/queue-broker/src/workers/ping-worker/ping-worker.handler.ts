import { Injectable } from '@nestjs/common';
import { Subjects, type PingWorkerCommand, type WorkerStopRequestedEvent } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { JobLifecycle } from '../../jobs/job-lifecycle.js';
import { workerCallTime } from '../../jobs/job.rules.js';
import { JobsRepository } from '../../jobs/jobs.repository.js';
import { QueueBrokerConfig } from '../../queue-broker.config.js';
import { WorkersRepository } from '../workers.repository.js';

/**
 * The heartbeat. Its `job_id` list is compared with the worker's leases: a job leased more than
 * LEASE_CONFIRM_GRACE_MS ago that the worker does not list never reached it (the take's answer was lost) and is
 * taken back; a job the worker still lists STOP_REPEAT_AFTER_MS after job-stop named it, although it was cancelled
 * or timed out, is named in job-stop again (and its late job-done stays ignored). Both count from when the heartbeat
 * reached the edge (`requestedAt`): its list is what the worker ran then, however long the edge held the call.
 */
@Injectable()
export class PingWorkerHandler {
  constructor(
    private readonly jobs: JobsRepository,
    private readonly workers: WorkersRepository,
    private readonly lifecycle: JobLifecycle,
    private readonly config: QueueBrokerConfig,
  ) {}

  @CommandHandler(Subjects.worker.ping)
  async handle(ctx: CommandContext<PingWorkerCommand>): Promise<{ requeued: number }> {
    const { payload, manager } = ctx;
    const sentAt = workerCallTime(payload.requestedAt, ctx.now);
    await this.workers.touch(payload.endpointId, payload.workerId, sentAt, manager);
    await this.workers.markHealth(
      payload.workerId,
      payload.unhealthy,
      payload.reason ?? null,
      payload.version ?? null,
      manager,
    );
    const graceStart = new Date(sentAt.getTime() - this.config.LEASE_CONFIRM_GRACE_MS);
    const listed = new Set(payload.jobIds);
    let requeued = 0;
    for (const job of await this.jobs.lockLeasedTo([payload.workerId], manager)) {
      if (listed.has(job.id) || !job.leasedAt || job.leasedAt > graceStart) continue;
      await this.lifecycle.requeue(
        ctx,
        job,
        'UNCONFIRMED',
        `worker ${payload.workerId} does not list the job in its heartbeat (the job never reached it)`,
        this.config.JOB_MAX_ATTEMPTS,
      );
      requeued += 1;
    }
    const repeatBefore = new Date(sentAt.getTime() - this.config.STOP_REPEAT_AFTER_MS);
    for (const jobId of await this.jobs.rearmStops(payload.workerId, payload.jobIds, repeatBefore, manager)) {
      const stop: WorkerStopRequestedEvent = {
        endpointId: payload.endpointId,
        workerId: payload.workerId,
        jobId,
      };
      await ctx.emit(Subjects.worker.stopRequested, stop);
    }
    return { requeued };
  }
}
