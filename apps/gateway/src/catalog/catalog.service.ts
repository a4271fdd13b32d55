import { Injectable } from '@nestjs/common';
import {
  DomainError,
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

  /** One GPU type by id (`GET /v2/catalog/gpus/{id}`, which SkyPilot asks before creating a pod); 404 if none. */
  async gpuType(id: string, actor: Actor): Promise<GpuTypeView> {
    const gpu = (await this.gpuTypes(actor)).find((g) => g.id === id);
    if (!gpu) throw DomainError.notFound('GPU type', id);
    return gpu;
  }

  cpuTypes(actor: Actor): Promise<CpuTypeView[]> {
    return this.queries.query(Subjects.catalog.cpuTypes, {}, actor);
  }

  dataCenters(actor: Actor): Promise<DataCenterView[]> {
    return this.queries.query(Subjects.catalog.dataCenters, {}, actor);
  }
}
