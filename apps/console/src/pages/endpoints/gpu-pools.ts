import type { GpuTier } from '@app/contracts';

/** The GPU pools an endpoint's workers may run on (our GPU tiers), in the catalog's order. */
export const POOLS: GpuTier[] = [
  'AMPERE_16',
  'AMPERE_24',
  'ADA_24',
  'AMPERE_48',
  'ADA_48_PRO',
  'AMPERE_80',
  'ADA_80_PRO',
];
