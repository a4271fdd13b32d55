import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * One workload preempted (a pod, a worker or a whole cluster): who lost it, for whom, and why. Kept for the pace
 * limit (preemptions per minute per cohort), the quota views' counts, and the history's record of each decision.
 */
@Entity({ name: 'preemptions' })
@Index('preemptions_cohort_at_idx', ['victimCohort', 'at'])
@Index('preemptions_owner_at_idx', ['victimOwnerId', 'at'])
export class PreemptionEntity {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ type: 'timestamptz' })
  at: Date;

  @Column({ name: 'preemptor_account_id', type: 'text' })
  preemptorAccountId: string;

  /** The pod or cluster whose placement needed the GPUs. */
  @Column({ name: 'preemptor_workload_id', type: 'text' })
  preemptorWorkloadId: string;

  @Column({ name: 'victim_owner_id', type: 'text' })
  victimOwnerId: string;

  /** The victim's cohort, or `account:<id>` when it has none: what the pace limit counts by. */
  @Column({ name: 'victim_cohort', type: 'text' })
  victimCohort: string;

  /** The workload: its cluster's id, or its one pod's id. */
  @Column({ name: 'workload_id', type: 'text' })
  workloadId: string;

  @Column({ name: 'pod_ids', type: 'text', array: true })
  podIds: string[];

  @Column({ type: 'integer' })
  gpus: number;

  @Column({ type: 'text' })
  reason: string;
}
