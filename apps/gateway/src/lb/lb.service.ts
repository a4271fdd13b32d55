import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { presentedKey } from '../auth/auth.guard.js';
import { checkParameters } from '../edge/request-shape.pipe.js';
import { LbAccess } from './lb-access.js';
import { LbProxy } from './lb-proxy.js';
import { LbRequestMeter } from './lb-request-meter.js';

/**
 * Every request to a load-balancing endpoint: `/lb/{endpoint_id}/{path}`, or any path on
 * `{endpoint_id}.{LB_DOMAIN}` (rewritten to the former). Any method; the key as bearer, scopes as on the queue
 * routes (a read key only reads, an `endpoints` key only its endpoints, a worker key never). Served on a Fastify
 * route of its own (lb-routes.setup.ts), not a Nest controller: see LbAccess for the rules it keeps.
 */
@Injectable()
export class LbService {
  constructor(
    private readonly access: LbAccess,
    private readonly proxy: LbProxy,
    private readonly meter: LbRequestMeter,
  ) {}

  async forward(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const { endpointId } = request.params as { endpointId: string };
    // What the global RequestShapePipe checks of a Nest route's path parameter (400 on a control character).
    checkParameters(endpointId, 'endpointId');
    const endpoint = await this.access.admit({
      key: presentedKey(request as Parameters<typeof presentedKey>[0], { key: 'bearer' }),
      missingKey: 'missing API key: send Authorization: Bearer <key>',
      endpointId,
      method: request.method,
      headers: request.headers,
      rateLimitHeaders: reply,
    });
    // Counted for the endpoint metrics once the response is over: by its status, or as a proxy error when the
    // gateway answered for the worker; a request whose client left before any answer is not counted.
    const startedAt = Date.now();
    let proxyError = false;
    reply.raw.once('close', () => {
      if (!reply.raw.headersSent) return;
      this.meter.ended(endpoint.id, proxyError ? 'proxy-error' : { status: reply.raw.statusCode }, startedAt);
    });
    try {
      await this.proxy.forward(endpoint, workerPath(request.url, endpointId), request, reply);
    } catch (error) {
      proxyError = true;
      throw error;
    }
  }
}

/** `/lb/<id>/v1/models?x=1` → `/v1/models?x=1`; `/lb/<id>` and `/lb/<id>?x=1` → `/` and `/?x=1`. */
export function workerPath(url: string, endpointId: string): string {
  const rest = url.slice(`/lb/${endpointId}`.length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}
