import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** Workers whose first job request the metrics have counted as a cold start (once each), kept for the retention. */
@Entity({ name: 'metrics_cold_starts' })
@Index('metrics_cold_starts_at_idx', ['firstPollAt'])
export class CountedColdStartEntity {
  @PrimaryColumn({ name: 'worker_id', type: 'text' })
  workerId: string;

  @Column({ name: 'endpoint_id', type: 'text' })
  endpointId: string;

  @Column({ name: 'first_poll_at', type: 'timestamptz' })
  firstPollAt: Date;
}
