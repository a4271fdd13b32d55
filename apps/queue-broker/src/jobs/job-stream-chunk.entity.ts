import { Column, Entity, PrimaryColumn } from 'typeorm';

/** One chunk of a streaming job's output (at most 1 MB), in the order the worker posted them. */
@Entity({ name: 'job_stream_chunks' })
export class JobStreamChunkEntity {
  @PrimaryColumn({ name: 'job_id', type: 'text' })
  jobId: string;

  @PrimaryColumn({ type: 'integer' })
  seq: number;

  @Column({ type: 'jsonb', nullable: true })
  output: unknown;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
