import { Injectable } from '@nestjs/common';
import {
  BlobMissingError,
  DomainError,
  ErrorCode,
  JobLimits,
  Subjects,
  jobIdFor,
  retentionFor,
  type JobAccepted,
  type SubmitJobCommand,
} from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { PayloadStore } from '../../payloads/payload-store.js';
import { JobLifecycle } from '../job-lifecycle.js';
import { JobEntity } from '../job.entity.js';
import { containsNul, lifetimeExpiry } from '../job.rules.js';
import { JobsRepository } from '../jobs.repository.js';
import { QueueBrokerConfig } from '../../queue-broker.config.js';

/** /run and /runsync: the job row is committed before the edge answers 200 (the command waits for it). */
@Injectable()
export class SubmitJobHandler {
  constructor(
    private readonly jobs: JobsRepository,
    private readonly lifecycle: JobLifecycle,
    private readonly payloads: PayloadStore,
    private readonly config: QueueBrokerConfig,
  ) {}

  @CommandHandler(Subjects.job.submit)
  async handle(ctx: CommandContext<SubmitJobCommand>): Promise<JobAccepted> {
    const { envelope, payload, manager, now } = ctx;
    const id = jobIdFor(envelope.commandId, payload.sync);
    const input = payload.inputBlob ? await this.loadInput(payload) : payload.input;
    if (input === undefined) throw new DomainError(ErrorCode.ValidationFailed, 'input is required');
    const ttlMs = payload.policy?.ttl ?? null;
    const job = Object.assign(new JobEntity(), {
      id,
      endpointId: payload.endpointId,
      ownerId: envelope.actor.userId,
      sync: payload.sync,
      status: 'IN_QUEUE',
      input,
      output: null,
      hasOutput: false,
      error: null,
      webhook: payload.webhook ?? null,
      s3Config: payload.s3Config ?? null,
      executionTimeoutMs: payload.policy?.executionTimeout ?? JobLimits.executionTimeoutMs.default,
      ttlMs,
      lowPriority: payload.policy?.lowPriority ?? false,
      retentionMs: payload.sync ? retentionFor(true, payload.waitMs) : this.config.RUN_RETENTION_MS,
      createdAt: now,
      queuedAt: now,
      startedAt: null,
      finishedAt: null,
      expiresAt: lifetimeExpiry(now, ttlMs),
      delayTimeMs: null,
      executionTimeMs: null,
      leaseWorkerId: null,
      leasedAt: null,
      lastWorkerId: null,
      attempts: 0,
      retries: 0,
      streamSeq: 0,
      streamRead: 0,
      stopPending: false,
      stopDeliveredAt: null,
    } satisfies Partial<JobEntity>);
    await this.jobs.insert(job, manager);
    await this.lifecycle.queued(ctx, job);
    return { id, status: 'IN_QUEUE' };
  }

  private async loadInput(payload: SubmitJobCommand): Promise<unknown> {
    try {
      const text = await this.payloads.loadText(payload.inputBlob!);
      if (containsNul(text)) {
        throw new DomainError(ErrorCode.ValidationFailed, 'input strings may not contain U+0000 (\\u0000)');
      }
      return JSON.parse(text) as unknown;
    } catch (error) {
      if (error instanceof BlobMissingError) {
        throw new DomainError(
          ErrorCode.BadRequest,
          `the job's input is no longer available (${error.message})`,
        );
      }
      throw error;
    }
  }
}
