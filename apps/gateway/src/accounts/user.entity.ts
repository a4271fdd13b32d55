import { Column, Entity, PrimaryColumn } from 'typeorm';

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
}
