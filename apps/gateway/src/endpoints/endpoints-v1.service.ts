import { Injectable } from '@nestjs/common';
import type {
  Actor,
  CreateEndpointV1Dto,
  EndpointV1View,
  PodView,
  TemplateView,
  UpdateEndpointV1Dto,
} from '@app/contracts';
import { CatalogService } from '../catalog/catalog.service.js';
import { PodsService } from '../pods/pods.service.js';
import { TemplatesService } from '../templates/templates.service.js';
import { toEndpointV1View, toSaveCommandV1 } from './endpoint-v1.view.js';
import { EndpointsService, type EndpointDetails } from './endpoints.service.js';

/** What `?includeTemplate=true&includeWorkers=true` ask a v1 endpoint view to embed. */
export interface EndpointIncludes {
  template: boolean;
  workers: boolean;
}

/**
 * REST v1's endpoints: the same EndpointsService (and so the same rules) as /v2/serverless and GraphQL, plus the
 * reads v1 names need: the catalog's GPU types (v1 names types, the record keeps pools), and the template and
 * worker pods its clients may ask to embed, each read once per request rather than once per endpoint.
 */
@Injectable()
export class EndpointsV1Service {
  constructor(
    private readonly endpoints: EndpointsService,
    private readonly catalog: CatalogService,
    private readonly templates: TemplatesService,
    private readonly pods: PodsService,
  ) {}

  async create(dto: CreateEndpointV1Dto, actor: Actor): Promise<EndpointV1View> {
    const gpuTypes = await this.catalog.gpuTypes(actor);
    return toEndpointV1View(await this.endpoints.save(toSaveCommandV1(dto, null, gpuTypes), actor), gpuTypes);
  }

  async update(id: string, dto: UpdateEndpointV1Dto, actor: Actor): Promise<EndpointV1View> {
    const gpuTypes = await this.catalog.gpuTypes(actor);
    const details = await this.endpoints.update(
      id,
      (current) => toSaveCommandV1(dto, current, gpuTypes),
      actor,
    );
    return toEndpointV1View(details, gpuTypes);
  }

  async list(actor: Actor, secrets: boolean, include: EndpointIncludes): Promise<EndpointV1View[]> {
    return this.views(await this.endpoints.list(actor, { secrets }), actor, include);
  }

  async get(id: string, actor: Actor, secrets: boolean, include: EndpointIncludes): Promise<EndpointV1View> {
    const [view] = await this.views([await this.endpoints.get(id, actor, { secrets })], actor, include);
    return view;
  }

  private async views(
    all: EndpointDetails[],
    actor: Actor,
    include: EndpointIncludes,
  ): Promise<EndpointV1View[]> {
    const [gpuTypes, templates, pods] = await Promise.all([
      this.catalog.gpuTypes(actor),
      include.template ? this.templates.list(actor) : ([] as TemplateView[]),
      include.workers ? this.pods.list(false, actor) : ([] as PodView[]),
    ]);
    return all.map((details) => ({
      ...toEndpointV1View(details, gpuTypes),
      ...(include.template
        ? { template: templates.find((t) => t.id === details.view.templateId) ?? null }
        : {}),
      ...(include.workers ? { workers: workersOf(details, pods) } : {}),
    }));
  }
}

/** The endpoint's worker pods the autoscaler knows of that are not terminated, in its order. */
function workersOf({ view }: EndpointDetails, pods: PodView[]): PodView[] {
  const byId = new Map(pods.map((pod) => [pod.id, pod]));
  return (view.workers ?? []).flatMap((worker) => byId.get(worker.podId) ?? []);
}
