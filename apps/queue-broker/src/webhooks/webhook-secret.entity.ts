import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * An endpoint's webhook signing secret (Standard Webhooks, `whsec_…`), sealed by the gateway with the key ring;
 * written only by `job.cmd.rotate-webhook-secret`, which carries the sealed value, so a replay stores the same.
 */
@Entity({ name: 'webhook_secrets' })
export class WebhookSecretEntity {
  @PrimaryColumn({ name: 'endpoint_id', type: 'text' })
  endpointId: string;

  @Column({ name: 'secret_sealed', type: 'text' })
  secretSealed: string;

  /** The secret before the last rotation: it signs too until WEBHOOK_SECRET_OVERLAP_MS after `rotated_at`. */
  @Column({ name: 'previous_sealed', type: 'text', nullable: true })
  previousSealed: string | null;

  @Column({ name: 'rotated_at', type: 'timestamptz' })
  rotatedAt: Date;
}
