import { Column, Entity, PrimaryColumn } from 'typeorm';

/** One minute's use of one limit of one account (quota.cmd.sample), for the console's chart; kept a week. */
@Entity({ name: 'quota_samples' })
export class QuotaSampleEntity {
  @PrimaryColumn({ name: 'account_id', type: 'text' })
  accountId: string;

  @PrimaryColumn({ type: 'timestamptz' })
  at: Date;

  @PrimaryColumn({ name: 'gpu_type_id', type: 'text' })
  gpuTypeId: string;

  /** '' for a limit over every data center (a primary key column cannot be null). */
  @PrimaryColumn({ name: 'data_center_id', type: 'text' })
  dataCenterId: string;

  @Column({ type: 'integer' })
  gpus: number;

  @Column({ name: 'in_use', type: 'integer' })
  inUse: number;

  @Column({ type: 'integer' })
  borrowed: number;

  @Column({ type: 'integer' })
  lent: number;
}
