import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

@Entity({ name: 'users' })
export class UserEntity {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ type: 'text', unique: true })
  name: string;

  /** Exempt users get no rate limits and no rate-limit headers. */
  @Column({ name: 'rate_limit_exempt', type: 'boolean', default: false })
  rateLimitExempt: boolean;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  /** A disabled user's keys and sessions are refused; the user and what their account owns stay. */
  @Column({ name: 'disabled_at', type: 'timestamptz', nullable: true })
  disabledAt: Date | null;

  /** The identity provider's `iss` and `sub` of a user created by a sign-in (`<iss>#<sub>`). */
  @Index('users_sso_subject_uq', { unique: true, where: 'sso_subject IS NOT NULL' })
  @Column({ name: 'sso_subject', type: 'text', nullable: true })
  ssoSubject: string | null;
}
