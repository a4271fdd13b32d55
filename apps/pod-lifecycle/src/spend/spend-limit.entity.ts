import { Column, Entity, PrimaryColumn } from 'typeorm';
import { NUMERIC_AS_NUMBER } from '@app/database';

/** A user's monthly spend limits (docs/adr/0023-spend-limits.md); a user without a row has none. */
@Entity({ name: 'spend_limits' })
export class SpendLimitEntity {
  @PrimaryColumn({ name: 'user_id', type: 'text' })
  userId: string;

  /** The operator's cap (set with `npm run keys -- spend set`), null for none. */
  @Column({
    name: 'operator_limit',
    type: 'numeric',
    precision: 16,
    scale: 6,
    nullable: true,
    transformer: NUMERIC_AS_NUMBER,
  })
  operatorLimit: number | null;

  /** The user's own limit, never above the cap, null for none. */
  @Column({
    name: 'user_limit',
    type: 'numeric',
    precision: 16,
    scale: 6,
    nullable: true,
    transformer: NUMERIC_AS_NUMBER,
  })
  userLimit: number | null;

  /** The time of the command that last changed it. */
  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
