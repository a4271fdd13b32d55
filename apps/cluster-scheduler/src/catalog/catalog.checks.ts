import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { DomainError, ErrorCode } from '@app/contracts';
import { CatalogRepository } from './catalog.repository.js';
import type { GpuTypeEntity } from './gpu-type.entity.js';

/** A list field's name, or a function naming its item `i` as the request's surface does. */
type ItemName = string | ((index: number) => string);

function invalid(error: string): DomainError {
  return new DomainError(ErrorCode.ValidationFailed, 'the request failed validation', [error]);
}

/** What a DTO cannot know: that ids name catalog entries and counts fit the GPU type (422, naming the field). */
@Injectable()
export class CatalogChecks {
  constructor(private readonly catalog: CatalogRepository) {}

  async gpuType(field: string, id: string, manager: EntityManager): Promise<GpuTypeEntity> {
    return this.knownGpuType(field, id, await this.catalog.findGpuType(id, manager));
  }

  gpuCount(field: string, count: number, gpuType: GpuTypeEntity): void {
    if (count > gpuType.maxCount) {
      throw invalid(`${field} must not be greater than ${gpuType.maxCount} for ${gpuType.id}`);
    }
  }

  async cpuType(field: string, id: string, manager: EntityManager): Promise<void> {
    if (!(await this.catalog.findCpuType(id, manager))) {
      throw invalid(`${field} must be a CPU type id from GET /v2/catalog/cpus; "${id}" is not one`);
    }
  }

  /**
   * `gpuType`, `gpuCount` and `dataCenters` in that order (the first that fails throws), on one statement.
   */
  async gpuPodRequest(
    gpu: { field: string; id: string; countField: string; count: number },
    dataCenters: { field: ItemName; ids: readonly string[] },
    manager: EntityManager,
  ): Promise<GpuTypeEntity> {
    const { gpuType, known } = await this.catalog.gpuTypeAndKnownDataCenters(
      gpu.id,
      dataCenters.ids,
      manager,
    );
    const checked = this.knownGpuType(gpu.field, gpu.id, gpuType);
    this.gpuCount(gpu.countField, gpu.count, checked);
    this.knownDataCenters(dataCenters.field, dataCenters.ids, known);
    return checked;
  }

  knownGpuType(field: string, id: string, gpuType: GpuTypeEntity | null): GpuTypeEntity {
    if (!gpuType) {
      throw invalid(`${field} must be a GPU type id from GET /v2/catalog/gpus; "${id}" is not one`);
    }
    return gpuType;
  }

  /** `field`: the list's name (its items named `<field>.<i>`), or how the request's surface names item `i`. */
  async dataCenters(field: ItemName, ids: readonly string[], manager: EntityManager): Promise<void> {
    const known = new Set((await this.catalog.dataCenters(manager)).map((dc) => dc.id));
    this.knownDataCenters(field, ids, known);
  }

  knownDataCenters(field: ItemName, ids: readonly string[], known: ReadonlySet<string>): void {
    const item = typeof field === 'string' ? (i: number) => `${field}.${i}` : field;
    const errors = ids.flatMap((id, i) =>
      known.has(id)
        ? []
        : [`${item(i)} must be a data center id from GET /v2/catalog/datacenters; "${id}" is not one`],
    );
    if (errors.length) {
      throw new DomainError(ErrorCode.ValidationFailed, 'the request failed validation', errors);
    }
  }

  async dataCenter(field: string, id: string, manager: EntityManager): Promise<void> {
    if (!(await this.catalog.findDataCenter(id, manager))) {
      throw invalid(`${field} must be a data center id from GET /v2/catalog/datacenters; "${id}" is not one`);
    }
  }
}
