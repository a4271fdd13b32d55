import { Injectable } from '@nestjs/common';
import {
  Subjects,
  type Actor,
  type CpuTypeView,
  type DataCenterView,
  type GpuTypeView,
} from '@app/contracts';
import { QueryBus } from '@app/messaging';

/** The catalog with live availability, owned by cluster-scheduler. */
@Injectable()
export class CatalogService {
  constructor(private readonly queries: QueryBus) {}

  gpuTypes(actor: Actor): Promise<GpuTypeView[]> {
    return this.queries.query(Subjects.catalog.gpuTypes, {}, actor);
  }

  cpuTypes(actor: Actor): Promise<CpuTypeView[]> {
    return this.queries.query(Subjects.catalog.cpuTypes, {}, actor);
  }

  dataCenters(actor: Actor): Promise<DataCenterView[]> {
    return this.queries.query(Subjects.catalog.dataCenters, {}, actor);
  }
}
