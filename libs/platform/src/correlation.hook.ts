import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { Headers } from '@app/contracts';
import { requestContext } from '@app/observability';

const VALID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Runs each request inside its correlation context (taken from `x-correlation-id` or new) and echoes it. A Fastify
 * `onRequest` hook rather than a Nest middleware: Nest runs middleware through @fastify/middie, an Express-style
 * engine whose layers cost more per request than this whole function (issue 13's edge profile). Fastify calls the
 * rest of the request's lifecycle from `done`, so it all runs inside the context, unmatched routes included.
 */
export function correlationHook(
  request: FastifyRequest,
  reply: FastifyReply,
  done: HookHandlerDoneFunction,
): void {
  const given = request.headers[Headers.CorrelationId];
  const correlationId = typeof given === 'string' && VALID.test(given) ? given : randomUUID();
  void reply.header(Headers.CorrelationId, correlationId);
  requestContext.run({ correlationId }, done);
}
