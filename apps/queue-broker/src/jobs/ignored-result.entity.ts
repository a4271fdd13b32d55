import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A job-done or job-stream post that changed nothing (the job finished already, was cancelled, or is leased to
 * another worker). Answered 200 so the worker does not retry; recorded here so nothing disappears silently.
 */
@Entity({ name: 'ignored_results' })
@Index('ignored_results_job_idx', ['jobId'])
export class IgnoredResultEntity {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ name: 'job_id', type: 'text' })
  jobId: string;

  @Column({ name: 'worker_id', type: 'text' })
  workerId: string;

  /** done, progress or stream. */
  @Column({ type: 'text' })
  kind: string;

  @Column({ type: 'text' })
  reason: string;

  @Column({ name: 'received_at', type: 'timestamptz' })
  receivedAt: Date;
}
