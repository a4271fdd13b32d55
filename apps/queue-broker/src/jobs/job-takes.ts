import { Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCode,
  isBlobRef,
  isTakeDecision,
  type RecordedDecision,
  type TakeBlobRef,
  type TakeJobsCommand,
  type TakeResult,
  type TakenJob,
} from '@app/contracts';
import type { StatementPart } from '@app/database';
import type { CommandContext } from '@app/messaging';
import { PayloadStore } from '../payloads/payload-store.js';
import { QueueBrokerConfig } from '../queue-broker.config.js';
import { JobLeasesRepository, type LeasedJob } from './job-leases.repository.js';
import { workerCallTime } from './job.rules.js';
import { WorkerRoster } from './worker-roster.js';

/**
 * A take, in the caller's transaction: leases the oldest queued jobs of the endpoint to the worker (rows locked with
 * SKIP LOCKED, so a cancel in flight is never handed out). Nothing is leased to a worker that is not alive any more
 * (lost, or silent for WORKER_LOST_AFTER_MS: the edge still asks for its long poll, but a frozen or vanished worker
 * would never run the job). Two statements, and one more when it leases anything (job-leases.repository.ts).
 *
 * Two commands take: `worker.cmd.take` (a poll asking) and `job.cmd.submit` with a piggy-backed take (a poll that
 * was waiting when the job came). Which jobs a take leases depends on the takes of other workers running in other
 * lanes at the same time, so it is a decision the commands' order does not determine: a replay gives the handler
 * the jobs the live take leased (`decided`, read from its recorded outcome) and it leases exactly those. An answer
 * too large for a message keeps the ids beside its blob, so the recorded outcome says what was leased even once the
 * blob is removed (docs/adr/0028-recorded-take-decisions.md).
 */
@Injectable()
export class JobTakes {
  constructor(
    private readonly leases: JobLeasesRepository,
    private readonly workers: WorkerRoster,
    private readonly payloads: PayloadStore,
    private readonly config: QueueBrokerConfig,
  ) {}

  async take(
    ctx: Pick<CommandContext, 'envelope' | 'manager' | 'now'>,
    take: TakeJobsCommand,
    decided: RecordedDecision | undefined,
  ): Promise<TakeResult | TakeBlobRef> {
    const { manager, now } = ctx;
    // One statement: the worker's touch, and the lease only if that found it alive.
    const touch = this.touchOf(take, now);
    const taken =
      decided === undefined
        ? await this.leases.leaseQueued(take.endpointId, take.batchSize, take.workerId, now, touch, manager)
        : await this.leases.leaseRecorded(
            take.endpointId,
            recordedJobIds(decided, take.batchSize),
            take.workerId,
            now,
            touch,
            manager,
          );
    return this.answer(ctx, taken);
  }

  /** The worker's touch as its take makes it (WorkerRoster.pollingTouch): a heartbeat at its call, alive unless lost. */
  private touchOf(take: TakeJobsCommand, now: Date): StatementPart {
    const heardAt = workerCallTime(take.requestedAt, now);
    const lostBefore = new Date(now.getTime() - this.config.WORKER_LOST_AFTER_MS);
    return this.workers.pollingTouch(take.endpointId, take.workerId, heardAt, lostBefore);
  }

  private async answer(
    ctx: Pick<CommandContext, 'envelope'>,
    taken: LeasedJob[],
  ): Promise<TakeResult | TakeBlobRef> {
    if (!taken.length) return { jobs: [] };
    const result: TakeResult = { jobs: taken.map(toTakenJob) };
    const packed = await this.payloads.pack(`take-${ctx.envelope.commandId}`, result);
    return isBlobRef(packed) ? { ...packed, jobIds: taken.map((job) => job.id) } : packed;
  }
}

/** The ids of the jobs a take's answer leased, inline or packed. */
export function takenJobIds(answer: TakeResult | TakeBlobRef): string[] {
  return isBlobRef(answer) ? answer.jobIds : answer.jobs.map((job) => job.id);
}

/** The job ids of a replayed take's decision: checked, since it comes from the replay request, not the stream. */
function recordedJobIds(decided: unknown, batchSize: number): string[] {
  if (!isTakeDecision(decided) || decided.jobIds.length > batchSize) {
    throw new DomainError(
      ErrorCode.ValidationFailed,
      'the recorded decision of a take names no jobs it can lease',
    );
  }
  return decided.jobIds;
}

function toTakenJob(job: LeasedJob): TakenJob {
  const taken: TakenJob = { id: job.id, input: job.input };
  if (job.webhook) taken.webhook = job.webhook;
  if (job.s3Config) taken.s3Config = job.s3Config;
  const policy = {
    executionTimeout: job.executionTimeoutMs,
    ...(job.lowPriority ? { lowPriority: true } : {}),
    ...(job.ttlMs !== null ? { ttl: job.ttlMs } : {}),
  };
  taken.policy = policy;
  return taken;
}
