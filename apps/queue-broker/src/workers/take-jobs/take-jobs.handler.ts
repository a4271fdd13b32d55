import { Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCode,
  Subjects,
  isBlobRef,
  isTakeDecision,
  type TakeBlobRef,
  type TakeJobsCommand,
  type TakeResult,
  type TakenJob,
} from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { JobLeasesRepository, type LeasedJob } from '../../jobs/job-leases.repository.js';
import { PayloadStore } from '../../payloads/payload-store.js';
import { QueueBrokerConfig } from '../../queue-broker.config.js';
import { WorkersRepository, workerCallTime } from '../workers.repository.js';

/**
 * job-take / job-take-batch: leases the oldest queued jobs of the endpoint to the worker (rows locked with SKIP
 * LOCKED, so a cancel in flight is never handed out). An empty answer is normal: the edge long-polls. Nothing is
 * leased to a worker that is not alive any more (lost, or silent for WORKER_LOST_AFTER_MS: the edge still asks for
 * its long poll, but a frozen or vanished worker would never run the job). Two statements and one more per take
 * that leases anything (job-leases.repository.ts): this runs for every poll of every worker.
 *
 * Which jobs a take leases depends on the takes of other workers running in other lanes at the same time, so it
 * is a decision the commands' order does not determine: a replay gives the handler the jobs the live take leased
 * (`ctx.decided`, read from its recorded outcome) and it leases exactly those. An answer too large for a message
 * keeps the ids beside its blob, so the recorded outcome says what was leased even once the blob is removed
 * (docs/adr/0028-recorded-take-decisions.md).
 */
@Injectable()
export class TakeJobsHandler {
  constructor(
    private readonly leases: JobLeasesRepository,
    private readonly workers: WorkersRepository,
    private readonly payloads: PayloadStore,
    private readonly config: QueueBrokerConfig,
  ) {}

  @CommandHandler(Subjects.worker.take)
  async handle(ctx: CommandContext<TakeJobsCommand>): Promise<TakeResult | TakeBlobRef> {
    const { payload, manager, now, decided } = ctx;
    const heardAt = workerCallTime(payload.requestedAt, now);
    const lostBefore = new Date(now.getTime() - this.config.WORKER_LOST_AFTER_MS);
    const alive = await this.workers.touchPolling(
      payload.endpointId,
      payload.workerId,
      heardAt,
      lostBefore,
      manager,
    );
    if (!alive) return { jobs: [] };
    const taken =
      decided === undefined
        ? await this.leases.leaseQueued(payload.endpointId, payload.batchSize, payload.workerId, now, manager)
        : await this.leases.leaseRecorded(
            payload.endpointId,
            recordedJobIds(decided, payload.batchSize),
            payload.workerId,
            now,
            manager,
          );
    if (!taken.length) return { jobs: [] };
    const result: TakeResult = { jobs: taken.map(toTakenJob) };
    const packed = await this.payloads.pack(`take-${ctx.envelope.commandId}`, result);
    return isBlobRef(packed) ? { ...packed, jobIds: taken.map((job) => job.id) } : packed;
  }
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
