import { JobLimits, retentionFor, type JobPolicy } from '@app/contracts';
import { JobEntity } from './job.entity.js';
import { lifetimeExpiry } from './job.rules.js';

/** What a submit says about its job (`job.cmd.submit`, or one item of `job.cmd.submit-many`). */
export interface SubmittedJob {
  id: string;
  endpointId: string;
  ownerId: string;
  sync: boolean;
  input: unknown;
  webhook?: string;
  s3Config?: Record<string, unknown>;
  policy?: JobPolicy;
  waitMs?: number;
}

/** A job as a submit records it: IN_QUEUE from `now`, its limits from its policy or the defaults. */
export function newQueuedJob(job: SubmittedJob, now: Date, runRetentionMs: number): JobEntity {
  const ttlMs = job.policy?.ttl ?? null;
  return Object.assign(new JobEntity(), {
    id: job.id,
    endpointId: job.endpointId,
    ownerId: job.ownerId,
    sync: job.sync,
    status: 'IN_QUEUE',
    input: job.input,
    output: null,
    hasOutput: false,
    error: null,
    webhook: job.webhook ?? null,
    s3Config: job.s3Config ?? null,
    executionTimeoutMs: job.policy?.executionTimeout ?? JobLimits.executionTimeoutMs.default,
    ttlMs,
    lowPriority: job.policy?.lowPriority ?? false,
    retentionMs: job.sync ? retentionFor(true, job.waitMs) : runRetentionMs,
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
}
