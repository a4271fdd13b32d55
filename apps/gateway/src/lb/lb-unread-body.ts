import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyRequest, onRequestHookHandler } from 'fastify';

const ORIGINAL_HEADERS = Symbol('gpucp:lb-original-headers');

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
export const leaveBodyUnread: onRequestHookHandler = (request: FastifyRequest, _reply, done) => {
  (request as WithOriginal)[ORIGINAL_HEADERS] = { ...request.headers };
  delete request.headers['content-type'];
  delete request.headers['transfer-encoding'];
  request.headers['content-length'] = '0';
  done();
};
