import type { DataCenterScorer, HostCapacity, HostScorer, PlacementRequest } from '../placement.js';

function free(host: HostCapacity, request: PlacementRequest): number {
  return request.gpuTypeId === null ? host.freeCpuSlots : host.freeGpus;
}

function total(host: HostCapacity, request: PlacementRequest): number {
  return request.gpuTypeId === null ? host.cpuSlots : host.gpuCount;
}

/**
 * Best fit: hosts already in use first, then the ones with the fewest free GPUs (CPU slots), so whole hosts stay
 * free for pods and clusters that need a whole host.
 */
export const packingHostScorer: HostScorer = {
  name: 'packing',
  score: (host, request) => (free(host, request) < total(host, request) ? 1e6 : 0) - free(host, request),
};

/** Between data centers: the one where the placement breaks the fewest whole (entirely free) hosts. */
export const packingDataCenterScorer: DataCenterScorer = {
  name: 'packing',
  score(candidate, request) {
    const used = new Set(candidate.assignments.map((a) => a.hostId));
    const broken = candidate.hosts.filter(
      (h) => used.has(h.id) && free(h, request) === total(h, request),
    ).length;
    return -broken * 1e3;
  },
};
