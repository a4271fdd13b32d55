import { Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCode,
  Subjects,
  TEMPLATE_SOURCES,
  type Actor,
  type CpuTypeView,
  type DataCenterView,
  type GpuTypeView,
  type TemplateSource,
  type TemplateView,
} from '@app/contracts';
import { QueryBus } from '@app/messaging';

/**
 * The catalog: GPU and CPU types and data centers with live availability, owned by cluster-scheduler; the public
 * templates, owned (with every template) by pod-lifecycle.
 */
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

  /** One CPU type by id (`GET /v2/catalog/cpus/{id}`, the MCP server's `get-cpu-type`); 404 if none. */
  async cpuType(id: string, actor: Actor): Promise<CpuTypeView> {
    const cpu = (await this.cpuTypes(actor)).find((c) => c.id === id);
    if (!cpu) throw DomainError.notFound('CPU type', id);
    return cpu;
  }

  dataCenters(actor: Actor): Promise<DataCenterView[]> {
    return this.queries.query(Subjects.catalog.dataCenters, {}, actor);
  }

  /** One data center by id (`GET /v2/catalog/datacenters/{id}`, the MCP server's `get-data-center`); 404 if none. */
  async dataCenter(id: string, actor: Actor): Promise<DataCenterView> {
    const dataCenter = (await this.dataCenters(actor)).find((d) => d.id === id);
    if (!dataCenter) throw DomainError.notFound('data center', id);
    return dataCenter;
  }

  /** One slice of the public templates (`?source=`, RunPod's default `official`); another value is 422. */
  templates(source: string | undefined, actor: Actor): Promise<TemplateView[]> {
    const slice = source ?? 'official';
    if (!isTemplateSource(slice)) {
      throw new DomainError(ErrorCode.ValidationFailed, 'the request failed validation', [
        `source must be one of ${TEMPLATE_SOURCES.join(', ')}`,
      ]);
    }
    return this.queries.query(Subjects.template.catalog, { source: slice }, actor);
  }
}

function isTemplateSource(value: string): value is TemplateSource {
  return (TEMPLATE_SOURCES as readonly string[]).includes(value);
}
