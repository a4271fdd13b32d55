import { Injectable } from '@nestjs/common';
import { Subjects, type EndpointView, type GetEndpointQuery } from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import { WorkersRepository } from '../../workers/workers.repository.js';
import { ownedEndpoint } from '../endpoint.access.js';
import { EndpointThrottles } from '../endpoint-throttles.js';
import { toEndpointView } from '../endpoint.mapper.js';
import { EndpointsRepository } from '../endpoints.repository.js';

/**
 * One endpoint with its workers, and why they are held back if they are (`throttled`: the gateway's /health shows
 * it): 404 unknown or deleted, 403 another user's (system actors read any).
 */
@Injectable()
export class GetEndpointHandler {
  constructor(
    private readonly endpoints: EndpointsRepository,
    private readonly workers: WorkersRepository,
    private readonly throttles: EndpointThrottles,
  ) {}

  @QueryHandler(Subjects.endpoint.get)
  async handle(ctx: QueryContext<GetEndpointQuery>): Promise<EndpointView> {
    const { id } = ctx.payload;
    const entity = ownedEndpoint(await this.endpoints.findLive(id), id, ctx.actor);
    const [workers, throttled] = await Promise.all([
      this.workers.visibleByEndpoints([entity.id]),
      // A read, not a decision: the time it is asked at.
      this.throttles.throttled(entity.id, new Date()),
    ]);
    const view = toEndpointView(entity, workers.get(entity.id) ?? []);
    return throttled ? { ...view, throttled } : view;
  }
}
