import { HttpException } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DomainError, ErrorCode } from '@app/contracts';
import { isDatabaseUnavailable } from '@app/database';
import { httpStatusFor } from './http-status.js';
import { NOT_OFFERED_TITLE, NOT_OFFERED_TYPE, problem, type Problem } from './problem.js';

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

/** What the request itself tells of an error: its route's body limit and its Content-Length, in bytes. */
export interface RequestFacts {
  bodyLimit?: number;
  contentLength?: number;
}

/** Bytes as a person reads them: `10 MB`, `12.5 MB`, `64 KB`, `900 bytes`. */
export function formatBytes(bytes: number): string {
  const units: [number, string][] = [
    [1024 * 1024, 'MB'],
    [1024, 'KB'],
  ];
  for (const [size, unit] of units) {
    if (bytes >= size) return `${Math.round((bytes / size) * 10) / 10} ${unit}`;
  }
  return `${bytes} bytes`;
}

/** The 413 of a body over its route's limit, naming the limit and what was received when the request says. */
function bodyTooLarge({ bodyLimit, contentLength }: RequestFacts): string {
  if (bodyLimit === undefined) return 'request body is larger than this route accepts';
  const received = contentLength !== undefined ? `: received ${formatBytes(contentLength)}` : '';
  return `request body is larger than this route's limit of ${formatBytes(bodyLimit)} (${bodyLimit} bytes)${received}`;
}

/** Turns anything thrown while serving a request into the interface's problem body. Never leaks a stack. */
export function toProblem(error: unknown, request: RequestFacts = {}): MappedError {
  if (error instanceof DomainError) {
    if (error.code === ErrorCode.NotAvailable) {
      // The one code of a feature the deployment does not offer: typed, so a client needs not parse the detail.
      return {
        problem: { type: NOT_OFFERED_TYPE, ...problem(501, error.message), title: NOT_OFFERED_TITLE },
      };
    }
    return { problem: problem(httpStatusFor(error.code), error.message, error.errors) };
  }
  // Nest's Fastify adapter hands Fastify's own 4xx errors (a body too large...) over as an HttpException
  // with the original as its cause: the code is read there.
  const fastify = (
    error instanceof HttpException && error.cause instanceof Error ? error.cause : error
  ) as FastifyError;
  switch (fastify?.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { problem: problem(400, `malformed JSON body: ${fastify.message}`) };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { problem: problem(413, bodyTooLarge(request)) };
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
