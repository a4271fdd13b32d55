import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A user's own quotas for one policy, replacing the configured defaults window by window (null: the default).
 * Managed with `npm run keys -- limits ...`; read by the limiter's statement on every request, so a change is
 * effective at once on every replica.
 */
@Entity({ name: 'rate_limit_overrides' })
export class RateLimitOverrideEntity {
  @PrimaryColumn({ name: 'user_id', type: 'text' })
  userId: string;

  /** A `RateLimitPolicyName`. */
  @PrimaryColumn({ type: 'text' })
  policy: string;

  @Column({ name: 'minute_quota', type: 'integer', nullable: true })
  minuteQuota: number | null;

  @Column({ name: 'hour_quota', type: 'integer', nullable: true })
  hourQuota: number | null;

  @Column({ name: 'day_quota', type: 'integer', nullable: true })
  dayQuota: number | null;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
