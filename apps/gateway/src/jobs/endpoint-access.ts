import { Inject, Injectable } from '@nestjs/common';
import { DomainError, ErrorCode, Subjects, type Actor, type EndpointView } from '@app/contracts';
import { QueryBus } from '@app/messaging';
import { JobsEdgeConfig } from './jobs-edge.config.js';

const MAX_ENTRIES = 10_000;

/**
 * Asks the endpoint's owner (endpoint-autoscaler, `endpoint.qry.get`) before any queue or worker route: 404 for an
 * unknown endpoint, 403 for another user's, 400 for a load-balancing endpoint (it has no queue). Answers are reused
 * for ENDPOINT_CACHE_MS (≤ 2 s) per user and endpoint.
 */
@Injectable()
export class EndpointAccess {
  private readonly cache = new Map<string, { view: EndpointView; until: number }>();

  constructor(
    private readonly queries: QueryBus,
    @Inject(JobsEdgeConfig) private readonly config: JobsEdgeConfig,
  ) {}

  async queueEndpoint(endpointId: string, actor: Actor): Promise<EndpointView> {
    const view = await this.lookup(endpointId, actor);
    if (view.type === 'LB') {
      throw new DomainError(
        ErrorCode.BadRequest,
        `endpoint ${endpointId} is a load-balancing (LB) endpoint: it has no job queue, so /run, /runsync and the ` +
          `other job routes do not apply; send HTTP requests to its workers instead`,
      );
    }
    return view;
  }

  /** The actor's endpoint of either type (404 unknown, 403 another's), from the same short cache. */
  ownedEndpoint(endpointId: string, actor: Actor): Promise<EndpointView> {
    return this.lookup(endpointId, actor);
  }

  private async lookup(endpointId: string, actor: Actor): Promise<EndpointView> {
    const key = `${actor.userId}\u0000${endpointId}`;
    const now = Date.now();
    const hit = this.cache.get(key);
    if (hit && hit.until > now) return hit.view;
    const view = await this.queries.query(Subjects.endpoint.get, { id: endpointId }, actor);
    if (this.config.ENDPOINT_CACHE_MS > 0) {
      if (this.cache.size >= MAX_ENTRIES) this.cache.clear();
      this.cache.set(key, { view, until: now + this.config.ENDPOINT_CACHE_MS });
    }
    return view;
  }
}
