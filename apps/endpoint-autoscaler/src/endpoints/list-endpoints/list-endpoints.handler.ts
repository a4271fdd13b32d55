import { Injectable } from '@nestjs/common';
import { Subjects, type EndpointView, type ListEndpointsQuery } from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import { WorkersRepository } from '../../workers/workers.repository.js';
import { toEndpointView } from '../endpoint.mapper.js';
import { EndpointsRepository } from '../endpoints.repository.js';

/** The actor's endpoints, oldest first, each with its workers. */
@Injectable()
export class ListEndpointsHandler {
  constructor(
    private readonly endpoints: EndpointsRepository,
    private readonly workers: WorkersRepository,
  ) {}

  @QueryHandler(Subjects.endpoint.list)
  async handle(ctx: QueryContext<ListEndpointsQuery>): Promise<EndpointView[]> {
    const entities = await this.endpoints.listByOwner(ctx.actor.userId);
    const workers = await this.workers.visibleByEndpoints(entities.map((e) => e.id));
    return entities.map((entity) => toEndpointView(entity, workers.get(entity.id) ?? []));
  }
}
