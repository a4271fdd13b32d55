import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** One limit of a quota as stored (the contract's QuotaLimitInput, normalised: nulls, not absences). */
export interface StoredLimit {
  gpuTypeId: string;
  dataCenterId: string | null;
  gpus: number;
  borrowingLimit: number | null;
}

/**
 * An account's GPU quota (a team's or a user's; `*` is the operator's default, for every account without its own).
 * Its limits are a small list read whole with the row at each admission, so they are one jsonb column.
 */
@Entity({ name: 'quotas' })
export class QuotaEntity {
  @PrimaryColumn({ name: 'account_id', type: 'text' })
  accountId: string;

  @Column({ name: 'account_name', type: 'text', nullable: true })
  accountName: string | null;

  @Index('quotas_cohort_idx')
  @Column({ type: 'text', nullable: true })
  cohort: string | null;

  @Column({ type: 'jsonb' })
  limits: StoredLimit[];

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
