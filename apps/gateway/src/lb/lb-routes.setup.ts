import { Logger } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendProblem } from '../edge/problem.filter.js';
import { leaveBodyUnread } from './lb-unread-body.js';
import { LbService } from './lb.service.js';

/**
 * The LB routes, `/lb/<id>` and `/lb/<id>/*` with any method, registered on Fastify itself (called from main.ts,
 * before the app listens) rather than as a Nest controller: every proxied request skipped Nest's guard, pipe,
 * parameter and filter pipeline, which did nothing here that LbAccess (the key, the rate limit, the scope, the
 * endpoint; shared with the WebSocket upgrades) and the few lines below (problem+json errors, as the global
 * ProblemFilter answers them) do not (docs/adr/0031). The request body stays unread for the proxy.
 */
export function configureLbRoutes(app: NestFastifyApplication): void {
  const fastify = app.getHttpAdapter().getInstance();
  const lb = app.get(LbService);
  const logger = new Logger('edge');
  // Not an async handler: a request whose client went away ends with no reply, which Fastify would report.
  const handler = (request: FastifyRequest, reply: FastifyReply): void => {
    lb.forward(request, reply).catch((error: unknown) => sendProblem(reply, error, logger));
  };
  for (const url of ['/lb/:endpointId', '/lb/:endpointId/*']) {
    fastify.all(url, { onRequest: leaveBodyUnread }, handler);
  }
}

/**
 * Fastify's `rewriteUrl`: with LB_DOMAIN set, a request for `<endpoint_id>.<LB_DOMAIN>` (any port) is routed as
 * `/lb/<endpoint_id><path>`, so both forms share one route, one auth rule and one rate limit. Other hosts, and
 * LB_DOMAIN empty, leave the URL as it is.
 */
export function lbHostRewriter(domain: string): ((request: IncomingMessage) => string) | undefined {
  if (!domain) return undefined;
  const suffix = `.${domain.toLowerCase()}`;
  return (request) => {
    const url = request.url ?? '/';
    const host = (request.headers.host ?? '').toLowerCase().replace(/:\d+$/, '');
    if (!host.endsWith(suffix)) return url;
    const endpointId = host.slice(0, -suffix.length);
    if (!/^[a-z0-9]{1,64}$/.test(endpointId)) return url;
    return `/lb/${endpointId}${url.startsWith('/') ? url : `/${url}`}`;
  };
}
