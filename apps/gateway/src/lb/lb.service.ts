import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, ErrorCode, type Actor } from '@app/contracts';
import { EndpointAccess } from '../jobs/endpoint-access.js';
import { LbProxy } from './lb-proxy.js';

@Injectable()
export class LbService {
  constructor(
    private readonly access: EndpointAccess,
    private readonly proxy: LbProxy,
  ) {}

  /** The actor's LB endpoint (404 unknown, 403 another's, 400 a queue-based one), then its workers answer. */
  async forward(
    endpointId: string,
    request: FastifyRequest,
    reply: FastifyReply,
    actor: Actor,
  ): Promise<void> {
    const endpoint = await this.access.ownedEndpoint(endpointId, actor);
    if (endpoint.type !== 'LB') {
      throw new DomainError(
        ErrorCode.BadRequest,
        `endpoint ${endpointId} is queue-based (QB): send jobs to /v2/${endpointId}/run or /runsync; ` +
          '/lb/ routes serve load-balancing (LB) endpoints only',
      );
    }
    await this.proxy.forward(endpoint, workerPath(request.url, endpointId), request, reply);
  }
}

/** `/lb/<id>/v1/models?x=1` → `/v1/models?x=1`; `/lb/<id>` and `/lb/<id>?x=1` → `/` and `/?x=1`. */
export function workerPath(url: string, endpointId: string): string {
  const rest = url.slice(`/lb/${endpointId}`.length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}
