import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A webhook to deliver: written in the same transaction as the job's terminal state (an outbox), sent by the
 * WebhookSender after commit, never by a command handler.
 */
@Entity({ name: 'webhook_deliveries' })
@Index('webhook_deliveries_due_idx', ['nextAttemptAt'], {
  where: 'delivered_at IS NULL AND gave_up_at IS NULL',
})
export class WebhookDeliveryEntity {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ name: 'job_id', type: 'text' })
  jobId: string;

  /** Whose secret signs it (null on rows written before signing existed: they are sent unsigned). */
  @Column({ name: 'endpoint_id', type: 'text', nullable: true })
  endpointId: string | null;

  @Column({ type: 'text' })
  url: string;

  /** The final status object, as it was when the job finished. */
  @Column({ type: 'jsonb' })
  body: unknown;

  @Column({ type: 'integer', default: 0 })
  attempts: number;

  @Column({ name: 'next_attempt_at', type: 'timestamptz' })
  nextAttemptAt: Date;

  @Column({ name: 'locked_until', type: 'timestamptz', nullable: true })
  lockedUntil: Date | null;

  @Column({ name: 'delivered_at', type: 'timestamptz', nullable: true })
  deliveredAt: Date | null;

  @Column({ name: 'gave_up_at', type: 'timestamptz', nullable: true })
  gaveUpAt: Date | null;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError: string | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
