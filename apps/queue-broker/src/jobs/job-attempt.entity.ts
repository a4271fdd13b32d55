import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

export const ATTEMPT_OUTCOMES = [
  'COMPLETED',
  'FAILED',
  'CANCELLED',
  'TIMED_OUT',
  'WORKER_LOST',
  'UNCONFIRMED',
] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

/**
 * One lease of a job to a worker. At most one open lease per job (unique partial index): a job never runs on two
 * workers at once. A completion closes the open lease with outcome COMPLETED, once.
 */
@Entity({ name: 'job_attempts' })
@Index('job_attempts_open_uq', ['jobId'], { unique: true, where: 'ended_at IS NULL' })
@Index('job_attempts_job_idx', ['jobId', 'attempt'])
export class JobAttemptEntity {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ name: 'job_id', type: 'text' })
  jobId: string;

  @Column({ type: 'integer' })
  attempt: number;

  @Column({ name: 'worker_id', type: 'text' })
  workerId: string;

  @Column({ name: 'started_at', type: 'timestamptz' })
  startedAt: Date;

  @Column({ name: 'ended_at', type: 'timestamptz', nullable: true })
  endedAt: Date | null;

  @Column({ type: 'text', nullable: true })
  outcome: AttemptOutcome | null;
}
