import type { HostDetailView, HostPodView, HostView } from '@app/contracts';
import type { HostEntity } from '../catalog/host.entity.js';
import { isSchedulable, shownState } from './host-rules.js';

/** A host as the views read it: its columns (no registration date) and how many pods hold capacity on it. */
export type HostRow = Omit<HostEntity, 'registeredAt' | 'drainExpiredAt' | 'freePorts'> & { pods: number };

export function toHostView(h: HostRow): HostView {
  const state = shownState(h);
  const draining = h.schedulingState === 'DRAINING';
  return {
    id: h.id,
    dataCenterId: h.dataCenterId,
    gpuTypeId: h.gpuTypeId,
    gpuCount: h.gpuCount,
    allocatedGpus: h.gpuCount - h.freeGpus,
    cpuTypeId: h.cpuTypeId,
    cpuSlots: h.cpuSlots,
    allocatedCpuSlots: h.cpuSlots - h.freeCpuSlots,
    publicIp: h.publicIp,
    portRange: [h.portStart, h.portEnd],
    source: h.source,
    state,
    schedulable: isSchedulable(h),
    scheduling: {
      state: h.schedulingState,
      by: h.schedulingBy,
      reason: h.schedulingReason,
      since: h.schedulingSince.toISOString(),
    },
    health: {
      healthy: h.healthy,
      code: h.healthCode,
      reason: h.healthReason,
      source: h.healthSource,
      gpuIndex: h.healthGpuIndex,
      since: h.healthSince?.toISOString() ?? null,
    },
    drainDeadline: draining ? (h.drainDeadline?.toISOString() ?? null) : null,
    drained: draining ? h.pods === 0 : null,
    pods: h.pods,
  };
}

export function toHostDetailView(h: HostRow, podsOnHost: HostPodView[]): HostDetailView {
  return { ...toHostView(h), podsOnHost };
}
