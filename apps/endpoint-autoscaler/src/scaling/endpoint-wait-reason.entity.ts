import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Why an endpoint's jobs wait, as the control loop last judged it (endpoint-wait-reason.ts): one row per endpoint
 * while something holds its jobs, none otherwise. Kept in a table rather than the leader's memory because any
 * replica answers `endpoint.qry.get`; written only when the reason changes, so a steady wait costs no write.
 */
@Entity({ name: 'endpoint_wait_reasons' })
export class EndpointWaitReasonEntity {
  @PrimaryColumn({ name: 'endpoint_id', type: 'text' })
  endpointId: string;

  /** A WaitReasonCode. */
  @Column({ type: 'text' })
  code: string;

  @Column({ type: 'text' })
  message: string;

  /** When the condition began (kept while the code stays the same). */
  @Column({ type: 'timestamptz' })
  since: Date;

  @Column({ type: 'jsonb', nullable: true })
  details: Record<string, unknown> | null;

  /** The tick that wrote it. */
  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
