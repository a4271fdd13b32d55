import type { UsageRates } from '@app/contracts';

/**
 * Default prices for a self-hosted fleet, used when the fleet file names none (an operator sets `pricePerHr` on a
 * GPU or CPU type, and `prices` for storage, to charge their own). In the operator's currency, six decimals at
 * most. Cheap enough to be a chargeback signal rather than a market price: a GPU hour scales with its memory
 * (0.0125 per GB: 80 GB → 1.00), a CPU pod hour with its threads (0.01 each), storage per GB-hour.
 */
export const DEFAULT_CONTAINER_DISK_PER_GB_HR = 0.00014;
export const DEFAULT_NETWORK_VOLUME_PER_GB_HR = 0.0001;

export function defaultGpuPrice(memoryInGb: number): number {
  return roundPrice(memoryInGb * 0.0125);
}

export function defaultCpuPrice(cores: number, threadsPerCore: number): number {
  return roundPrice(cores * threadsPerCore * 0.01);
}

/** Six decimals, the precision prices are stored with. */
export function roundPrice(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

/** A placement's rates from the prices read for it (numeric columns as pg gives them; a missing price is 0). */
export function placementRates(
  gpuTypeId: string | null,
  gpuCount: number,
  prices: { gpu: string | number | null; cpu: string | number | null; disk: string | number | null },
): UsageRates {
  const compute = gpuTypeId === null ? Number(prices.cpu ?? 0) : Number(prices.gpu ?? 0) * gpuCount;
  return { computePerHr: roundPrice(compute), containerDiskPerGbHr: Number(prices.disk ?? 0) };
}
