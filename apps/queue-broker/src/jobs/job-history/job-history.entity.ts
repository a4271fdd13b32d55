import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { JobAttemptView, JobStatus } from '@app/contracts';

/**
 * What stays of a finished job once its result expired (docs/adr/0042-job-history.md): its record without its
 * input, output or error (only their sizes), moved here from `jobs` by the sweep that deletes it, and kept
 * JOB_HISTORY_RETENTION_MS after it finished. /status never reads it: an expired job is a 404 there as before.
 */
@Entity({ name: 'job_history' })
@Index('job_history_endpoint_created_idx', ['endpointId', 'createdAt', 'id'])
@Index('job_history_finished_idx', ['finishedAt'])
export class JobHistoryEntity {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ name: 'endpoint_id', type: 'text' })
  endpointId: string;

  @Column({ name: 'owner_id', type: 'text' })
  ownerId: string;

  @Column({ type: 'boolean' })
  sync: boolean;

  @Column({ type: 'text' })
  status: JobStatus;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt: Date | null;

  @Column({ name: 'finished_at', type: 'timestamptz' })
  finishedAt: Date;

  /** When the result expired: the job's `expires_at`. */
  @Column({ name: 'result_expired_at', type: 'timestamptz' })
  resultExpiredAt: Date;

  @Column({ name: 'delay_time_ms', type: 'integer', nullable: true })
  delayTimeMs: number | null;

  @Column({ name: 'execution_time_ms', type: 'integer', nullable: true })
  executionTimeMs: number | null;

  @Column({ name: 'last_worker_id', type: 'text', nullable: true })
  lastWorkerId: string | null;

  @Column({ type: 'integer' })
  attempts: number;

  @Column({ type: 'integer' })
  retries: number;

  @Column({ name: 'stream_chunks', type: 'integer' })
  streamChunks: number;

  /** Bytes of the JSON text of the input, output (null: none) and error (null: none). */
  @Column({ name: 'input_bytes', type: 'integer' })
  inputBytes: number;

  @Column({ name: 'output_bytes', type: 'integer', nullable: true })
  outputBytes: number | null;

  @Column({ name: 'error_bytes', type: 'integer', nullable: true })
  errorBytes: number | null;

  /** Its leases to workers (job_attempts rows, deleted with the job), oldest first. */
  @Column({ type: 'jsonb' })
  leases: JobAttemptView[];
}
