import { Inject, Injectable } from '@nestjs/common';
import { DomainError, ErrorCode, Subjects, type Actor, type EndpointView } from '@app/contracts';
import { QueryBus } from '@app/messaging';
import { JobsEdgeConfig } from './jobs-edge.config.js';

const MAX_ENTRIES = 10_000;

/**
 * Asks the endpoint's owner (endpoint-autoscaler, `endpoint.qry.get`) before any queue or worker route: 404 for an
 * unknown endpoint, 403 for another user's, 400 for a load-balancing endpoint (it has no queue). Answers are reused
 * for ENDPOINT_CACHE_MS (≤ 2 s) per user and endpoint.
 *
 * A steady stream of requests never waits for the owner: an answer past half its life is still served while one
 * query refreshes it in the background (so what is served stays at most ENDPOINT_CACHE_MS old). Only a miss, or an
 * answer that expired unused, waits; and the requests missing together share one query. Without this, every
 * request arriving during the round trip (NATS, another process, Postgres) asked again and waited for it: the
 * largest item of the LB proxy's p99 on the bench (docs/adr/0031).
 */
@Injectable()
export class EndpointAccess {
  private readonly cache = new Map<string, { view: EndpointView; until: number; refreshAt: number }>();
  /** The queries under way, by cache key: the requests that need the same answer meanwhile wait for this one. */
  private readonly asking = new Map<string, Promise<EndpointView>>();

  constructor(
    private readonly queries: QueryBus,
    @Inject(JobsEdgeConfig) private readonly config: JobsEdgeConfig,
  ) {}

  async queueEndpoint(endpointId: string, actor: Actor): Promise<EndpointView> {
    return queueOnly(endpointId, await this.lookup(endpointId, actor));
  }

  /** The actor's endpoint of either type (404 unknown, 403 another's), from the same short cache. */
  ownedEndpoint(endpointId: string, actor: Actor): Promise<EndpointView> {
    return this.lookup(endpointId, actor);
  }

  private lookup(endpointId: string, actor: Actor): Promise<EndpointView> {
    const key = `${actor.userId}\u0000${endpointId}`;
    const cached = this.cached(key, endpointId, actor);
    if (cached) return Promise.resolve(cached);
    // Without a cache every request has its own answer, asked after it came.
    if (this.config.ENDPOINT_CACHE_MS <= 0) {
      return this.queries.query(Subjects.endpoint.get, { id: endpointId }, actor);
    }
    return this.asking.get(key) ?? this.ask(key, endpointId, actor);
  }

  /** The cached answer if it is still valid, starting its background refresh when due. */
  private cached(key: string, endpointId: string, actor: Actor): EndpointView | undefined {
    const now = Date.now();
    const hit = this.cache.get(key);
    if (!hit || hit.until <= now) return undefined;
    if (hit.refreshAt <= now && !this.asking.has(key)) {
      // A failed refresh changes nothing: the answer expires as it would have, and the next request asks.
      this.ask(key, endpointId, actor).catch(() => undefined);
    }
    return hit.view;
  }

  private ask(key: string, endpointId: string, actor: Actor): Promise<EndpointView> {
    const sentAt = Date.now();
    const asking = this.queries
      .query(Subjects.endpoint.get, { id: endpointId }, actor)
      .then((view) => {
        const ttl = this.config.ENDPOINT_CACHE_MS;
        if (ttl > 0) {
          if (this.cache.size >= MAX_ENTRIES) this.cache.clear();
          this.cache.set(key, { view, until: sentAt + ttl, refreshAt: sentAt + ttl / 2 });
        }
        return view;
      })
      .finally(() => this.asking.delete(key));
    this.asking.set(key, asking);
    return asking;
  }
}

/** The endpoint, unless it is a load-balancing one (no job queue: 400). */
function queueOnly(endpointId: string, view: EndpointView): EndpointView {
  if (view.type === 'LB') {
    throw new DomainError(
      ErrorCode.BadRequest,
      `endpoint ${endpointId} is a load-balancing (LB) endpoint: it has no job queue, so /run, /runsync and the ` +
        `other job routes do not apply; send HTTP requests to its workers instead`,
    );
  }
  return view;
}
