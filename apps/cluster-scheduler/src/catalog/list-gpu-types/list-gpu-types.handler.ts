import { Injectable } from '@nestjs/common';
import { Subjects, type GpuTypeView, type ListGpuTypesQuery } from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import { toGpuTypeView } from '../catalog.mapper.js';
import { CatalogRepository } from '../catalog.repository.js';

/** Every GPU type with its maxCount and live availability. */
@Injectable()
export class ListGpuTypesHandler {
  constructor(private readonly catalog: CatalogRepository) {}

  @QueryHandler(Subjects.catalog.gpuTypes)
  async handle(_ctx: QueryContext<ListGpuTypesQuery>): Promise<GpuTypeView[]> {
    const [gpuTypes, capacity] = await Promise.all([this.catalog.gpuTypes(), this.catalog.gpuCapacity()]);
    return gpuTypes.map((g) => toGpuTypeView(g, capacity));
  }
}
