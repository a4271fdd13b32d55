import { PodStatus } from '@app/contracts';
import type { PodEntity } from '../pod.entity.js';
import { isLive } from '../pod-status-machine.js';
import type { PodUsageKind } from './pod-usage.entity.js';

/**
 * When a pod accrues (ADR 21): its compute while it holds GPUs or a CPU slot (PROVISIONING, STARTING, RUNNING:
 * the statuses whose reservation the scheduler keeps), its container disk in every status but TERMINATED (a
 * stopped pod keeps its disk).
 */
export function accrues(kind: PodUsageKind, status: PodStatus): boolean {
  return kind === 'compute' ? isLive(status) : status !== PodStatus.Terminated;
}

const KINDS: readonly PodUsageKind[] = ['compute', 'disk'];

/** Which intervals a status change opens and closes (`previous` null: the pod is new). */
export function usageChanges(
  previous: PodStatus | null,
  to: PodStatus,
): { open: PodUsageKind[]; close: PodUsageKind[] } {
  const before = (kind: PodUsageKind) => previous !== null && accrues(kind, previous);
  return {
    open: KINDS.filter((kind) => !before(kind) && accrues(kind, to)),
    close: KINDS.filter((kind) => before(kind) && !accrues(kind, to)),
  };
}

/** What an interval of `kind` costs per hour at the pod's current rates, and the units it counts. */
export function intervalRate(pod: PodEntity, kind: PodUsageKind): { ratePerHr: number; units: number } {
  return kind === 'compute'
    ? { ratePerHr: pod.computePerHr, units: pod.gpuCount }
    : { ratePerHr: pod.containerDiskGb * pod.containerDiskPerGbHr, units: pod.containerDiskGb };
}

/** `costPerHr` of a pod's views: compute and container disk while it runs, six decimals. */
export function costPerHr(
  pod: Pick<PodEntity, 'computePerHr' | 'containerDiskGb' | 'containerDiskPerGbHr'>,
): number {
  return Math.round((pod.computePerHr + pod.containerDiskGb * pod.containerDiskPerGbHr) * 1e6) / 1e6;
}
