import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Per endpoint and minute: jobs that finished COMPLETED, FAILED or TIMED_OUT (failed), and retries. */
@Entity({ name: 'endpoint_job_counters' })
export class EndpointCounterEntity {
  @PrimaryColumn({ name: 'endpoint_id', type: 'text' })
  endpointId: string;

  @PrimaryColumn({ name: 'bucket_start', type: 'timestamptz' })
  bucketStart: Date;

  @Column({ type: 'integer', default: 0 })
  completed: number;

  @Column({ type: 'integer', default: 0 })
  failed: number;

  @Column({ type: 'integer', default: 0 })
  retried: number;
}
