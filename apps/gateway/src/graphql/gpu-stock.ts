import type { GpuAvailability } from '@app/contracts';

/** RunPod's `stockStatus` words; null (RunPod's "out") when no pod of that size can be placed now. */
export type StockStatus = 'High' | 'Medium' | 'Low';

/** At least this many pods of the size asked for fit in the free GPUs: High; at least MEDIUM_FROM: Medium. */
export const HIGH_FROM = 8;
export const MEDIUM_FROM = 3;

/**
 * The stock of a GPU type for pods of `gpuCount` GPUs, from the scheduler's live figures. A pod's GPUs are on one
 * host, so none fits unless one host has `gpuCount` free; past that, the grade counts how many such pods the free
 * GPUs could hold (an upper bound: it does not know how they are spread over hosts).
 */
export function stockStatus(availability: GpuAvailability, gpuCount: number): StockStatus | null {
  const count = Math.max(1, gpuCount);
  if (availability.maxFreeOnOneHost < count) return null;
  const pods = Math.floor(availability.freeGpus / count);
  if (pods >= HIGH_FROM) return 'High';
  return pods >= MEDIUM_FROM ? 'Medium' : 'Low';
}
