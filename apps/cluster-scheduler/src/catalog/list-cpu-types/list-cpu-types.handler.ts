import { Injectable } from '@nestjs/common';
import { Subjects, type CpuTypeView, type ListCpuTypesQuery } from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import { toCpuTypeView } from '../catalog.mapper.js';
import { CatalogRepository } from '../catalog.repository.js';

/** Every CPU type with its live CPU-pod availability. */
@Injectable()
export class ListCpuTypesHandler {
  constructor(private readonly catalog: CatalogRepository) {}

  @QueryHandler(Subjects.catalog.cpuTypes)
  async handle(_ctx: QueryContext<ListCpuTypesQuery>): Promise<CpuTypeView[]> {
    const [cpuTypes, capacity] = await Promise.all([this.catalog.cpuTypes(), this.catalog.cpuCapacity()]);
    return cpuTypes.map((c) => toCpuTypeView(c, capacity));
  }
}
