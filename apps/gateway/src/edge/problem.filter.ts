import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { toGraphQLError } from './graphql-errors.js';
import { PROBLEM_CONTENT_TYPE, problemBodyFor } from './problem.js';
import { toProblem, type RequestFacts } from './to-problem.js';

/**
 * Every error of every REST route leaves as `application/problem+json`. A resolver's error is rethrown as a
 * GraphQL error (message + `extensions.code`, see graphql-errors.ts) for Apollo to answer.
 */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  private readonly logger = new Logger('edge');

  catch(error: unknown, host: ArgumentsHost): void {
    if (host.getType<string>() === 'graphql') throw toGraphQLError(error, this.logger);
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    sendProblem(reply, error, this.logger);
  }
}

export function sendProblem(reply: FastifyReply, error: unknown, logger: Logger): void {
  const mapped = toProblem(error, requestFacts(reply.request));
  if (mapped.errorId) logger.error({ errorId: mapped.errorId, err: error }, 'unexpected error');
  if (reply.sent) return;
  for (const [name, value] of Object.entries(mapped.headers ?? {})) void reply.header(name, value);
  void reply
    .status(mapped.problem.status)
    .header('content-type', PROBLEM_CONTENT_TYPE)
    .send(problemBodyFor(reply.request.url, mapped.problem));
}

/** The request's body limit (its route's) and declared length, for a 413 that names both. */
function requestFacts(request: FastifyRequest | undefined): RequestFacts {
  const length = Number(request?.headers['content-length']);
  return {
    bodyLimit: request?.routeOptions?.bodyLimit,
    ...(Number.isSafeInteger(length) && length >= 0 ? { contentLength: length } : {}),
  };
}

/**
 * Fastify's `frameworkErrors`: what its router answers before any route or hook runs (a malformed URL, a path
 * parameter longer than the router matches), as problem+json too.
 */
export function answerFrameworkErrors(
  maxParamLength: number,
  logger: Logger,
): (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => void {
  return (error, _request, reply) => {
    const mapped =
      error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? new HttpException(`a path parameter is longer than ${maxParamLength} characters`, 414)
        : error;
    sendProblem(reply, mapped, logger);
  };
}
