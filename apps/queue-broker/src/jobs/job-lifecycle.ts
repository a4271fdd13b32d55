import { Injectable } from '@nestjs/common';
import {
  JOB_EVENT_VIEW_BYTES,
  Subjects,
  deriveId,
  type JobChangedEvent,
  type JobQueuedEvent,
  type JobStatus,
  type WorkerStopRequestedEvent,
} from '@app/contracts';
import type { CommandContext } from '@app/messaging';
import { WebhookDeliveryEntity } from '../webhooks/webhook-delivery.entity.js';
import type { AttemptOutcome } from './job-attempt.entity.js';
import type { JobEntity } from './job.entity.js';
import type { JobWriteBatch } from './job-write-batch.js';
import { elapsedMs, finishedExpiry, isFinal, lifetimeExpiry, toJobView, webhookBody } from './job.rules.js';
import { JobChunksRepository } from './job-chunks.repository.js';
import { JobsRepository } from './jobs.repository.js';

/** A command's transaction; `writes`: a command that carries many jobs holds its job writes there (flushed by it). */
export type Tx = Pick<CommandContext, 'envelope' | 'manager' | 'now' | 'emit'> & { writes?: JobWriteBatch };

export type FinalStatus = Exclude<JobStatus, 'IN_QUEUE' | 'IN_PROGRESS'>;

export interface FinishOptions {
  output?: unknown;
  hasOutput?: boolean;
  error?: string | null;
  /** How the open lease (if any) ends; the final status by default. */
  attemptOutcome?: AttemptOutcome;
}

/**
 * The transitions that several use cases share, each in the caller's transaction (a lease is one statement of
 * its own: job-leases.repository.ts): finishing a job
 * (exactly once: the counters, the webhook, the stop signal and the event go with the one transition), and
 * putting a job whose lease was lost back in the queue.
 */
@Injectable()
export class JobLifecycle {
  constructor(
    private readonly jobs: JobsRepository,
    private readonly chunks: JobChunksRepository,
  ) {}

  async finish(tx: Tx, job: JobEntity, status: FinalStatus, options: FinishOptions = {}): Promise<void> {
    const leasedTo = job.status === 'IN_PROGRESS' ? job.leaseWorkerId : null;
    job.status = status;
    job.finishedAt = tx.now;
    job.executionTimeMs = job.startedAt && leasedTo ? (elapsedMs(job.startedAt, tx.now) ?? 0) : null;
    if (options.hasOutput !== undefined) {
      job.hasOutput = options.hasOutput;
      job.output = options.hasOutput ? (options.output ?? null) : null;
    }
    if (options.error !== undefined) job.error = options.error;
    job.leaseWorkerId = null;
    job.leasedAt = null;
    job.expiresAt = finishedExpiry(job, tx.now);
    const mustStop = leasedTo !== null && (status === 'CANCELLED' || status === 'TIMED_OUT');
    job.stopPending = mustStop;
    await this.save(tx, job, leasedTo ? (options.attemptOutcome ?? status) : undefined);
    if (job.webhook) {
      await tx.manager.insert(WebhookDeliveryEntity, {
        id: deriveId(tx.envelope.commandId, `webhook/${job.id}`, 24),
        jobId: job.id,
        endpointId: job.endpointId,
        url: job.webhook,
        body: webhookBody(job, tx.now),
        attempts: 0,
        nextAttemptAt: tx.now,
        lockedUntil: null,
        deliveredAt: null,
        gaveUpAt: null,
        lastError: null,
        createdAt: tx.now,
      });
    }
    if (mustStop && leasedTo) {
      const stop: WorkerStopRequestedEvent = {
        endpointId: job.endpointId,
        workerId: leasedTo,
        jobId: job.id,
      };
      await tx.emit(Subjects.worker.stopRequested, stop);
    }
    await this.changed(tx, job);
  }

  /** Back to the queue after a lost lease, or FAILED with the reason once JOB_MAX_ATTEMPTS leases were used. */
  async requeue(
    tx: Tx,
    job: JobEntity,
    outcome: Extract<AttemptOutcome, 'WORKER_LOST' | 'UNCONFIRMED'>,
    reason: string,
    maxAttempts: number,
  ): Promise<'requeued' | 'failed'> {
    if (job.attempts >= maxAttempts) {
      await this.finish(tx, job, 'FAILED', {
        error: `${reason}; gave up after ${job.attempts} attempt(s) (JOB_MAX_ATTEMPTS=${maxAttempts})`,
        attemptOutcome: outcome,
      });
      return 'failed';
    }
    await this.jobs.closeAttempt(job.id, outcome, tx.now, tx.manager);
    job.status = 'IN_QUEUE';
    job.leaseWorkerId = null;
    job.leasedAt = null;
    job.startedAt = null;
    job.delayTimeMs = null;
    job.hasOutput = false;
    job.output = null;
    // The next attempt streams from the start: chunks not yet read are dropped.
    await this.chunks.deleteChunks(job.id, tx.manager);
    job.streamSeq = 0;
    job.streamRead = 0;
    await this.save(tx, job);
    await this.queued(tx, job);
    return 'requeued';
  }

  /** Back to IN_QUEUE by POST /retry: same id and input, output and error cleared. */
  async retry(tx: Tx, job: JobEntity): Promise<void> {
    job.status = 'IN_QUEUE';
    job.retries += 1;
    job.attempts = 0;
    job.queuedAt = tx.now;
    job.startedAt = null;
    job.finishedAt = null;
    job.delayTimeMs = null;
    job.executionTimeMs = null;
    job.hasOutput = false;
    job.output = null;
    job.error = null;
    job.stopPending = false;
    job.expiresAt = lifetimeExpiry(tx.now, job.ttlMs);
    await this.chunks.deleteChunks(job.id, tx.manager);
    job.streamSeq = 0;
    job.streamRead = 0;
    await this.save(tx, job);
    await this.queued(tx, job, true);
  }

  /**
   * Writes the job's columns, and with `closing` ends its open attempt with that outcome in the same statement: held
   * in the command's batch when it has one (`tx.writes`), else sent now.
   */
  async save(tx: Tx, job: JobEntity, closing?: AttemptOutcome): Promise<void> {
    if (tx.writes) return tx.writes.save(job, closing);
    if (closing) await this.jobs.saveClosingAttempt(job, closing, tx.now, tx.manager);
    else await this.jobs.save(job, tx.manager);
  }

  async queued(tx: Tx, job: JobEntity, retried = false): Promise<void> {
    const event: JobQueuedEvent = { endpointId: job.endpointId, jobId: job.id };
    if (retried) event.retried = true;
    await tx.emit(Subjects.job.queued, event);
  }

  async changed(tx: Tx, job: JobEntity): Promise<void> {
    const event: JobChangedEvent = { endpointId: job.endpointId, jobId: job.id, status: job.status };
    if (isFinal(job.status)) {
      event.timing = { delayMs: job.delayTimeMs, executionMs: job.executionTimeMs };
      const view = toJobView(job, tx.now);
      if (JSON.stringify(view).length <= JOB_EVENT_VIEW_BYTES) {
        event.finished = { view, expiresAt: job.expiresAt.toISOString() };
      }
    }
    await tx.emit(Subjects.job.changed, event);
  }
}
