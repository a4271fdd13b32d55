import { Injectable } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import { DomainError, ErrorCode, type EndpointView } from '@app/contracts';
import { AccountsService } from '../accounts/accounts.service.js';
import { actorOf } from '../auth/auth.decorators.js';
import { admitted, authorize } from '../auth/auth.guard.js';
import { EndpointAccess } from '../jobs/endpoint-access.js';
import { RateLimiter, type HeaderSink } from '../rate-limit/rate-limiter.service.js';

/** What is asked of a caller at `/lb/<id>`: the key read from where the caller's transport puts it. */
export interface LbCaller {
  /** The presented key, or null when none was sent. */
  key: string | null;
  /** The 401's detail when `key` is null: how this transport takes a key. */
  missingKey: string;
  endpointId: string;
  method: string;
  headers: IncomingHttpHeaders;
  /** Where the RateLimit headers go: the reply, or the raw answer to an upgrade. */
  rateLimitHeaders: HeaderSink;
}

/**
 * The rules of `/lb/<id>/…`, for both ways in (a request on the Fastify route of lb-routes.setup.ts, a WebSocket
 * upgrade in lb-upgrade.ts), written once: the key (401 missing, unknown or revoked), counted under the `lb`
 * rate-limit policy of the user and endpoint once authenticated (so 403s carry the headers and 401s none, as on
 * every route), the key's scope (the rule `@Auth({ key: 'bearer', endpointParam })` gives the Nest routes),
 * then the caller's own endpoint (404 unknown, 403 another's) of type LB (400 a queue-based one).
 */
@Injectable()
export class LbAccess {
  constructor(
    private readonly accounts: AccountsService,
    private readonly endpoints: EndpointAccess,
    private readonly rateLimits: RateLimiter,
  ) {}

  async admit(caller: LbCaller): Promise<EndpointView> {
    if (!caller.key) throw new DomainError(ErrorCode.Unauthenticated, caller.missingKey);
    const principal = admitted(await this.accounts.authenticate(caller.key));
    await this.rateLimits.enforceRoute('lb', principal, caller.endpointId, caller.rateLimitHeaders);
    authorize(
      principal,
      { key: 'bearer', endpointParam: 'endpointId', resource: 'requests' },
      {
        method: caller.method,
        headers: caller.headers,
        query: {},
        params: { endpointId: caller.endpointId },
      },
    );
    const endpoint = await this.endpoints.ownedEndpoint(caller.endpointId, actorOf(principal));
    if (endpoint.type !== 'LB') {
      throw new DomainError(
        ErrorCode.BadRequest,
        `endpoint ${caller.endpointId} is queue-based (QB): send jobs to /v2/${caller.endpointId}/run or ` +
          '/runsync; /lb/ routes (and WebSockets) serve load-balancing (LB) endpoints only',
      );
    }
    return endpoint;
  }
}
