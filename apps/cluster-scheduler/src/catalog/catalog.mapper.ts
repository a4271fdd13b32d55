import type { CpuTypeView, DataCenterView, GpuAvailability, GpuTypeView } from '@app/contracts';
import type { CpuCapacityRow, GpuCapacityRow } from './catalog.repository.js';
import type { CpuTypeEntity } from './cpu-type.entity.js';
import type { DataCenterEntity } from './data-center.entity.js';
import type { GpuTypeEntity } from './gpu-type.entity.js';

function sumGpus(rows: readonly GpuCapacityRow[]): GpuAvailability {
  return {
    totalGpus: rows.reduce((n, r) => n + r.totalGpus, 0),
    freeGpus: rows.reduce((n, r) => n + r.freeGpus, 0),
    maxFreeOnOneHost: rows.reduce((n, r) => Math.max(n, r.maxFreeOnOneHost), 0),
    hosts: rows.reduce((n, r) => n + r.hosts, 0),
  };
}

export function toGpuTypeView(gpuType: GpuTypeEntity, capacity: readonly GpuCapacityRow[]): GpuTypeView {
  const rows = capacity.filter((r) => r.gpuTypeId === gpuType.id);
  return {
    id: gpuType.id,
    displayName: gpuType.displayName,
    manufacturer: gpuType.manufacturer,
    memoryInGb: gpuType.memoryInGb,
    maxCount: gpuType.maxCount,
    tier: gpuType.tier,
    pool: gpuType.tier,
    pricePerHr: gpuType.pricePerHr,
    availability: {
      ...sumGpus(rows),
      dataCenterIds: rows.filter((r) => r.freeGpus > 0).map((r) => r.dataCenterId),
    },
  };
}

export function toCpuTypeView(cpuType: CpuTypeEntity, capacity: readonly CpuCapacityRow[]): CpuTypeView {
  const rows = capacity.filter((r) => r.cpuTypeId === cpuType.id);
  return {
    id: cpuType.id,
    displayName: cpuType.displayName,
    cores: cpuType.cores,
    threadsPerCore: cpuType.threadsPerCore,
    pricePerHr: cpuType.pricePerHr,
    availability: {
      totalSlots: rows.reduce((n, r) => n + r.totalSlots, 0),
      freeSlots: rows.reduce((n, r) => n + r.freeSlots, 0),
      dataCenterIds: rows.filter((r) => r.freeSlots > 0).map((r) => r.dataCenterId),
    },
  };
}

export function toDataCenterView(
  dataCenter: DataCenterEntity,
  gpus: readonly GpuCapacityRow[],
  cpus: readonly CpuCapacityRow[],
): DataCenterView {
  return {
    id: dataCenter.id,
    name: dataCenter.name,
    region: dataCenter.region,
    gpuAvailability: gpus
      .filter((r) => r.dataCenterId === dataCenter.id)
      .map((r) => ({ gpuTypeId: r.gpuTypeId, ...sumGpus([r]) })),
    cpuAvailability: cpus
      .filter((r) => r.dataCenterId === dataCenter.id)
      .map((r) => ({ cpuTypeId: r.cpuTypeId, totalSlots: r.totalSlots, freeSlots: r.freeSlots })),
  };
}
