import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The live counters of one policy for one user (and, for the queue policies, one serverless endpoint): one row
 * holding all three fixed windows, so one upsert decides and counts a request atomically for every replica
 * (docs/adr/0004-rate-limits.md). Rows are reused window after window; a window whose start is older than the
 * current one counts as empty. Written only by `RateLimitCountersRepository`.
 */
@Entity({ name: 'rate_limit_counters' })
export class RateLimitCounterEntity {
  @PrimaryColumn({ name: 'user_id', type: 'text' })
  userId: string;

  /** A `RateLimitPolicyName`. */
  @PrimaryColumn({ type: 'text' })
  policy: string;

  /** The serverless endpoint for the per-endpoint policies; '' for per-user ones. */
  @PrimaryColumn({ name: 'scope_key', type: 'text' })
  scopeKey: string;

  /** Start of the current minute window, Unix seconds (a multiple of the window length). */
  @Column({ name: 'minute_start', type: 'bigint' })
  minuteStart: string;

  @Column({ name: 'minute_count', type: 'integer' })
  minuteCount: number;

  @Column({ name: 'hour_start', type: 'bigint' })
  hourStart: string;

  @Column({ name: 'hour_count', type: 'integer' })
  hourCount: number;

  @Column({ name: 'day_start', type: 'bigint' })
  dayStart: string;

  @Column({ name: 'day_count', type: 'integer' })
  dayCount: number;

  /** The quotas in force at the last request (defaults or the user's override). */
  @Column({ name: 'minute_quota', type: 'integer' })
  minuteQuota: number;

  @Column({ name: 'hour_quota', type: 'integer' })
  hourQuota: number;

  @Column({ name: 'day_quota', type: 'integer' })
  dayQuota: number;

  /** Whether the last request was admitted (a rejected one counts nowhere). */
  @Column({ name: 'last_admitted', type: 'boolean' })
  lastAdmitted: boolean;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
