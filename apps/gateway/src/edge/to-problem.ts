import { HttpException } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DomainError } from '@app/contracts';
import { isDatabaseUnavailable } from '@app/database';
import { httpStatusFor } from './http-status.js';
import { problem, type Problem } from './problem.js';

export interface MappedError {
  problem: Problem;
  /** Set for unexpected errors: logged with the error, and named in the response so a user can report it. */
  errorId?: string;
  /** Extra response headers (Retry-After, say). */
  headers?: Record<string, string>;
}

interface FastifyError {
  code?: string;
  statusCode?: number;
  message: string;
}

const DATABASE_RETRY_AFTER_SECONDS = 5;

/** Turns anything thrown while serving a request into the interface's problem body. Never leaks a stack. */
export function toProblem(error: unknown): MappedError {
  if (error instanceof DomainError) {
    return { problem: problem(httpStatusFor(error.code), error.message, error.errors) };
  }
  const fastify = error as FastifyError;
  switch (fastify?.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { problem: problem(400, `malformed JSON body: ${fastify.message}`) };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { problem: problem(413, 'request body is larger than this route accepts') };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { problem: problem(415, 'unsupported Content-Type: send application/json') };
    default:
      break;
  }
  if (error instanceof HttpException) {
    const status = error.getStatus();
    const response = error.getResponse();
    const raw = typeof response === 'string' ? response : (response as { message?: unknown }).message;
    const text =
      typeof raw === 'string'
        ? raw
        : Array.isArray(raw)
          ? raw.map((m) => String(m)).join('; ')
          : error.message;
    if (status === 404 && /^Cannot [A-Z]+ /.test(text)) {
      return { problem: problem(404, `no route ${text.replace(/^Cannot /, '')}`) };
    }
    return { problem: problem(status, text) };
  }
  if (error instanceof SyntaxError && /JSON/.test(error.message)) {
    return { problem: problem(400, `malformed JSON body: ${error.message}`) };
  }
  if (typeof fastify?.statusCode === 'number' && fastify.statusCode >= 400 && fastify.statusCode < 500) {
    return { problem: problem(fastify.statusCode, fastify.message) };
  }
  if (isDatabaseUnavailable(error)) {
    // Postgres is down or restarting (the gateway reads keys and quotas from it): a moment's outage, not a bug.
    return {
      problem: problem(503, 'the service cannot reach its database right now; try again in a few seconds'),
      headers: { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) },
    };
  }
  const errorId = randomUUID();
  return {
    problem: problem(500, `unexpected error ${errorId}; it has been logged under this id`),
    errorId,
  };
}
