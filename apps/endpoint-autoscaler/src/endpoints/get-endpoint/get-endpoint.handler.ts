import { Injectable } from '@nestjs/common';
import { Subjects, type EndpointView, type GetEndpointQuery } from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import { WorkersRepository } from '../../workers/workers.repository.js';
import { ownedEndpoint } from '../endpoint.access.js';
import { EndpointThrottles } from '../endpoint-throttles.js';
import { EndpointWaitReasons } from '../endpoint-wait-reasons.js';
import { toEndpointView } from '../endpoint.mapper.js';
import { EndpointsRepository } from '../endpoints.repository.js';

/**
 * One endpoint with its workers, why they are held back if they are (`throttled`), and why its jobs wait
 * (`waitReason`): the gateway's /health shows both, and its IN_QUEUE jobs' status the second. 404 unknown or deleted, 403 another user's (system actors read any).
 */
@Injectable()
export class GetEndpointHandler {
  constructor(
    private readonly endpoints: EndpointsRepository,
    private readonly workers: WorkersRepository,
    private readonly throttles: EndpointThrottles,
    private readonly waitReasons: EndpointWaitReasons,
  ) {}

  @QueryHandler(Subjects.endpoint.get)
  async handle(ctx: QueryContext<GetEndpointQuery>): Promise<EndpointView> {
    const { id } = ctx.payload;
    const entity = ownedEndpoint(await this.endpoints.findLive(id), id, ctx.actor);
    const [workers, throttled, waitReason] = await Promise.all([
      this.workers.visibleByEndpoints([entity.id]),
      // A read, not a decision: the time it is asked at.
      this.throttles.throttled(entity.id, new Date()),
      // One primary-key read: the control loop keeps it (wait-reason-tracker.ts).
      this.waitReasons.current(entity.id),
    ]);
    const view = { ...toEndpointView(entity, workers.get(entity.id) ?? []), waitReason };
    return throttled ? { ...view, throttled } : view;
  }
}
