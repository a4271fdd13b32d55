import { Injectable } from '@nestjs/common';
import { Subjects, type DataCenterView, type ListDataCentersQuery } from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import { toDataCenterView } from '../catalog.mapper.js';
import { CatalogRepository } from '../catalog.repository.js';

/** Every data center with live availability per GPU type and CPU type. */
@Injectable()
export class ListDataCentersHandler {
  constructor(private readonly catalog: CatalogRepository) {}

  @QueryHandler(Subjects.catalog.dataCenters)
  async handle(_ctx: QueryContext<ListDataCentersQuery>): Promise<DataCenterView[]> {
    const [dataCenters, gpus, cpus] = await Promise.all([
      this.catalog.dataCenters(),
      this.catalog.gpuCapacity(),
      this.catalog.cpuCapacity(),
    ]);
    return dataCenters.map((dc) => toDataCenterView(dc, gpus, cpus));
  }
}
