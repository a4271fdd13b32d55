import { IsBoolean, IsIn, IsOptional } from 'class-validator';

/**
 * How much a workload matters against the same team's others (docs/adr/0037-quotas-and-preemption.md). A request
 * may preempt its own team's lower-priority holders; `interruptible` holders (RunPod's spot pods) are preemptible
 * at any priority.
 */
export const PRIORITIES = ['low', 'normal', 'high'] as const;
export type Priority = (typeof PRIORITIES)[number];
export const DEFAULT_PRIORITY: Priority = 'normal';

/** Stored and compared as a number: low 0, normal 1, high 2. */
export function priorityRank(priority: Priority | undefined | null): number {
  return PRIORITIES.indexOf(priority ?? DEFAULT_PRIORITY);
}

export function priorityOf(rank: number): Priority {
  return PRIORITIES[rank] ?? DEFAULT_PRIORITY;
}

/** The two fields every workload request carries into placement. */
export class WorkloadPriorityDto {
  /** `low`, `normal` (the default) or `high`. */
  @IsOptional()
  @IsIn(PRIORITIES)
  priority?: Priority;

  /** Preemptible at any priority (RunPod's interruptible, or spot, pods). */
  @IsOptional()
  @IsBoolean()
  interruptible?: boolean;
}
