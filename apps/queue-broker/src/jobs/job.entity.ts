import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { NUMERIC_AS_NUMBER } from '@app/database';
import type { JobStatus } from '@app/contracts';

/**
 * A job of a queue-based endpoint. `lease_worker_id` is set exactly while the job is IN_PROGRESS (a CHECK), so a
 * job is leased to at most one worker at a time by construction; `job_attempts` keeps the history of leases.
 */
@Entity({ name: 'jobs' })
@Check('jobs_status_ck', `status IN ('IN_QUEUE','IN_PROGRESS','COMPLETED','FAILED','CANCELLED','TIMED_OUT')`)
@Check('jobs_lease_ck', `(status = 'IN_PROGRESS') = (lease_worker_id IS NOT NULL)`)
@Index('jobs_queue_idx', ['endpointId', 'queuedAt', 'id'], { where: `status = 'IN_QUEUE'` })
@Index('jobs_lease_idx', ['leaseWorkerId'], { where: 'lease_worker_id IS NOT NULL' })
@Index('jobs_stop_idx', ['lastWorkerId'], { where: 'stop_pending' })
@Index('jobs_expiry_idx', ['expiresAt'])
// What counts an endpoint's queue (queueCounts) reads: its queued and running jobs only, so that a job leaves the
// index when it finishes rather than being written into it once more, and the finished history kept for the
// results' retention does not grow it.
// The endpoint's job list (GET /v2/serverless/{id}/jobs, docs/adr/0042-job-history.md), newest first: read
// backwards a page at a time. Written once per job (none of its columns change afterwards).
@Index('jobs_endpoint_created_idx', ['endpointId', 'createdAt', 'id'])
@Index('jobs_endpoint_active_idx', ['endpointId', 'status'], {
  where: `status IN ('IN_QUEUE', 'IN_PROGRESS')`,
})
export class JobEntity {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ name: 'endpoint_id', type: 'text' })
  endpointId: string;

  @Column({ name: 'owner_id', type: 'text' })
  ownerId: string;

  /** Submitted by /runsync. */
  @Column({ type: 'boolean' })
  sync: boolean;

  @Column({ type: 'text' })
  status: JobStatus;

  @Column({ type: 'jsonb' })
  input: unknown;

  @Column({ type: 'jsonb', nullable: true })
  output: unknown;

  /** Whether `output` holds a value (`null` is a valid output). */
  @Column({ name: 'has_output', type: 'boolean', default: false })
  hasOutput: boolean;

  @Column({ type: 'text', nullable: true })
  error: string | null;

  @Column({ type: 'text', nullable: true })
  webhook: string | null;

  @Column({ name: 's3_config', type: 'jsonb', nullable: true })
  s3Config: Record<string, unknown> | null;

  @Column({ name: 'execution_timeout_ms', type: 'integer' })
  executionTimeoutMs: number;

  /** `policy.ttl` when given: the job's whole lifetime from submission (or from the last /status?ttl=). */
  @Column({ name: 'ttl_ms', type: 'bigint', nullable: true, transformer: NUMERIC_AS_NUMBER })
  ttlMs: number | null;

  @Column({ name: 'low_priority', type: 'boolean', default: false })
  lowPriority: boolean;

  /** How long the result is kept after the job finishes, when no ttl was given. */
  @Column({ name: 'retention_ms', type: 'integer' })
  retentionMs: number;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  /** When the job last entered IN_QUEUE (submission, retry, or a lost lease). */
  @Column({ name: 'queued_at', type: 'timestamptz' })
  queuedAt: Date;

  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt: Date | null;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt: Date | null;

  /** After this the job is gone: 404, and the sweeper deletes it. */
  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @Column({ name: 'delay_time_ms', type: 'integer', nullable: true })
  delayTimeMs: number | null;

  @Column({ name: 'execution_time_ms', type: 'integer', nullable: true })
  executionTimeMs: number | null;

  @Column({ name: 'lease_worker_id', type: 'text', nullable: true })
  leaseWorkerId: string | null;

  @Column({ name: 'leased_at', type: 'timestamptz', nullable: true })
  leasedAt: Date | null;

  /** The worker that ran (or runs) the job last; kept after it finishes (status `workerId`, job-stop). */
  @Column({ name: 'last_worker_id', type: 'text', nullable: true })
  lastWorkerId: string | null;

  /** Leases since the job was (re)submitted. */
  @Column({ type: 'integer', default: 0 })
  attempts: number;

  /** POST /retry count. */
  @Column({ type: 'integer', default: 0 })
  retries: number;

  /** Stream chunks stored / delivered by /stream. */
  @Column({ name: 'stream_seq', type: 'integer', default: 0 })
  streamSeq: number;

  @Column({ name: 'stream_read', type: 'integer', default: 0 })
  streamRead: number;

  /** Cancelled or timed out while leased: job-stop must tell `last_worker_id`. */
  @Column({ name: 'stop_pending', type: 'boolean', default: false })
  stopPending: boolean;

  @Column({ name: 'stop_delivered_at', type: 'timestamptz', nullable: true })
  stopDeliveredAt: Date | null;
}
