/** Serverless GPU tiers (the `gpuIds` values of endpoints) that each GPU type belongs to. */
export const GPU_TIERS = [
  'AMPERE_16',
  'AMPERE_24',
  'ADA_24',
  'AMPERE_48',
  'ADA_48_PRO',
  'AMPERE_80',
  'ADA_80_PRO',
] as const;
export type GpuTier = (typeof GPU_TIERS)[number];

/** Region codes a data center (and an endpoint's `locations`) may have. */
export const REGION_CODES = ['CZ', 'FR', 'GB', 'NO', 'RO', 'US'] as const;
export type RegionCode = (typeof REGION_CODES)[number];

/** Live capacity of one GPU type (over the whole fleet or one data center). */
export interface GpuAvailability {
  totalGpus: number;
  freeGpus: number;
  /** The most GPUs free on a single host: the largest `gpuCountPerPod` placeable right now. */
  maxFreeOnOneHost: number;
  hosts: number;
}

/** `GET /v2/catalog/gpus`. */
export interface GpuTypeView {
  id: string;
  displayName: string;
  manufacturer: string;
  memoryInGb: number;
  /** Most GPUs of this type one pod may have. */
  maxCount: number;
  tier: GpuTier;
  /**
   * The tier under RunPod's name for it: the serverless GPU pool, what a serverless endpoint's `gpu.pools` takes
   * (clients such as the MCP server read it from here).
   */
  pool: GpuTier;
  /** Price per GPU per hour (the operator's fleet file, or its default). */
  pricePerHr: number;
  availability: GpuAvailability & { dataCenterIds: string[] };
}

/** `GET /v2/catalog/cpus`. */
export interface CpuTypeView {
  id: string;
  displayName: string;
  cores: number;
  threadsPerCore: number;
  /** Price of a CPU pod per hour. */
  pricePerHr: number;
  availability: { totalSlots: number; freeSlots: number; dataCenterIds: string[] };
}

/** `GET /v2/catalog/datacenters`. */
export interface DataCenterView {
  id: string;
  name: string;
  region: RegionCode;
  gpuAvailability: (GpuAvailability & { gpuTypeId: string })[];
  cpuAvailability: { cpuTypeId: string; totalSlots: number; freeSlots: number }[];
}

export class ListGpuTypesQuery {}
export class ListCpuTypesQuery {}
export class ListDataCentersQuery {}
