import { type ArgumentsHost, Catch, type ExceptionFilter, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { toGraphQLError } from './graphql-errors.js';
import { PROBLEM_CONTENT_TYPE } from './problem.js';
import { toProblem } from './to-problem.js';

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
  const mapped = toProblem(error);
  if (mapped.errorId) logger.error({ errorId: mapped.errorId, err: error }, 'unexpected error');
  if (reply.sent) return;
  for (const [name, value] of Object.entries(mapped.headers ?? {})) void reply.header(name, value);
  void reply.status(mapped.problem.status).header('content-type', PROBLEM_CONTENT_TYPE).send(mapped.problem);
}
