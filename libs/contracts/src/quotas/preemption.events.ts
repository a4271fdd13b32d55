import { Type } from 'class-transformer';
import { IsArray, IsIn, IsOptional, IsString, ValidateNested } from 'class-validator';
import { PRIORITIES, type Priority } from './priority.js';

/** Why a holder was chosen (docs/adr/0037-quotas-and-preemption.md). */
export const PREEMPTION_REASONS = ['reclaim', 'priority', 'interruptible'] as const;
export type PreemptionReason = (typeof PREEMPTION_REASONS)[number];

/** Who preempted: the account and the workload it asked for, at what priority. */
export class Preemptor {
  @IsString()
  accountId: string;

  /** The pod or cluster being placed. */
  @IsString()
  workloadId: string;

  @IsIn(PRIORITIES)
  priority: Priority;
}

/** One preempted workload: a standalone pod, a serverless worker or a whole cluster (its member pods). */
export class PreemptedWorkload {
  @IsString()
  ownerId: string;

  /** The pods that lost their GPUs (a cluster's every member). */
  @IsArray()
  @IsString({ each: true })
  podIds: string[];

  @IsOptional()
  @IsString()
  clusterId?: string | null;

  @IsIn(PREEMPTION_REASONS)
  reason: PreemptionReason;
}

/**
 * `placement.evt.preempted` (cluster-scheduler, in the transaction that released the holders' GPUs for
 * `preemptor`): pod-lifecycle answers it with `pod.cmd.preempt`.
 */
export class PreemptedEvent {
  @ValidateNested()
  @Type(() => Preemptor)
  preemptor: Preemptor;

  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => PreemptedWorkload)
  workloads: PreemptedWorkload[];
}

/** `pod.cmd.preempt` (pod-lifecycle, recorded as the reaction to `placement.evt.preempted`): the pods go EXITED. */
export class PreemptPodsCommand extends PreemptedEvent {}

export interface PreemptPodsResult {
  /** The pods that were live and are now EXITED with reason PREEMPTED. */
  podIds: string[];
}

/** The status reason a preempted pod shows, and the audit action of a preemption. */
export const PREEMPTED_REASON = 'PREEMPTED';
export const PREEMPTED_ACTION = 'placement.preempted';
