import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** A serverless worker (its id is its pod id), as seen through its calls. */
@Entity({ name: 'workers' })
@Index('workers_endpoint_idx', ['endpointId'])
export class WorkerEntity {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ name: 'endpoint_id', type: 'text' })
  endpointId: string;

  /** First heard of: registered by the autoscaler, or its first call. */
  @Column({ name: 'registered_at', type: 'timestamptz' })
  registeredAt: Date;

  /** Last call of any kind (ping, take, done, stream); null while only registered. */
  @Column({ name: 'last_seen_at', type: 'timestamptz', nullable: true })
  lastSeenAt: Date | null;

  /** First job-take: until then the worker is initializing. */
  @Column({ name: 'first_poll_at', type: 'timestamptz', nullable: true })
  firstPollAt: Date | null;

  @Column({ type: 'boolean', default: false })
  unhealthy: boolean;

  @Column({ name: 'unhealthy_reason', type: 'text', nullable: true })
  unhealthyReason: string | null;

  /** Set by the sweeper when the worker stopped calling; its leases were given back. */
  @Column({ name: 'lost_at', type: 'timestamptz', nullable: true })
  lostAt: Date | null;

  /** The worker asked to be recycled (`stopPod: true`). */
  @Column({ name: 'recycle_requested', type: 'boolean', default: false })
  recycleRequested: boolean;

  @Column({ type: 'text', nullable: true })
  version: string | null;

  /**
   * The account the worker works for: the endpoint owner the autoscaler's register named (its actor). The sweep
   * enters a lost worker in that account's audit trail; null for a worker that called before it was registered.
   */
  @Column({ name: 'owner_id', type: 'text', nullable: true })
  ownerId: string | null;
}
