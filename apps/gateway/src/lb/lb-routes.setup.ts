import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyRequest, onRequestHookHandler, RouteOptions } from 'fastify';

const KEY = 'gpucpLbRoute';
const ORIGINAL_HEADERS = Symbol('gpucp:lb-original-headers');

/** `@RouteConfig(lbRoute())`: a route whose request body is the worker's, streamed through unread. */
export function lbRoute(): Record<string, true> {
  return { [KEY]: true };
}

type WithOriginal = FastifyRequest & { [ORIGINAL_HEADERS]?: IncomingHttpHeaders };

/** The request's headers as the client sent them (before the hook below hid the body from Fastify). */
export function originalHeaders(request: FastifyRequest): IncomingHttpHeaders {
  return (request as WithOriginal)[ORIGINAL_HEADERS] ?? request.headers;
}

/**
 * Fastify parses a body by its Content-Type before the handler runs, and there is no per-route way to say "do
 * not": so, for the LB routes only, the client's headers are kept aside and the ones Fastify reads are made to
 * say "no body". The body stays unread in the request stream, which the proxy pipes to the worker; any content
 * type and any size pass (the worker decides).
 */
const leaveBodyUnread: onRequestHookHandler = (request: FastifyRequest, _reply, done) => {
  (request as WithOriginal)[ORIGINAL_HEADERS] = { ...request.headers };
  delete request.headers['content-type'];
  delete request.headers['transfer-encoding'];
  request.headers['content-length'] = '0';
  done();
};

/** Wires the LB routes into Fastify before the app listens (called from main.ts). */
export function configureLbRoutes(app: NestFastifyApplication): void {
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onRoute', (route: RouteOptions) => {
    if (!(route.config as Record<string, unknown> | undefined)?.[KEY]) return;
    const existing = route.onRequest;
    route.onRequest = [leaveBodyUnread, ...(Array.isArray(existing) ? existing : existing ? [existing] : [])];
  });
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
