import {
  applyDecorators,
  createParamDecorator,
  type ExecutionContext,
  type StreamableFile,
} from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PodLogPage } from '@app/contracts';
import {
  IntQuery,
  Operation,
  TextQuery,
  type HandlerReturning,
  type OperationErrors,
} from '../openapi/openapi.decorators.js';
import { MAX_TAIL, type LogQuery } from './log-query.js';

const EVENTS =
  'With `Accept: text/event-stream`: one event per line, its `data` the line as JSON ' +
  '(`{"time","stream","line","generation"}`), and `: heartbeat` comments while following; the stream ends ' +
  'with the stored lines, or when following when the pod is terminated or the client disconnects.';

/** The OpenAPI description shared by the pod and worker logs routes, with their query parameters. */
export function LogRoute(
  summary: string,
  errors: OperationErrors,
): HandlerReturning<PodLogPage | StreamableFile> {
  const operation = Operation(summary, {
    returns: 'PodLogPage',
    eventStream: EVENTS,
    description:
      'Lines of stdout and stderr, and the runtime\'s own (`stream: "system"`), oldest first, secrets the ' +
      `platform injected replaced by \`[redacted]\`. Without \`text/event-stream\`: a JSON page of the last ` +
      `${MAX_TAIL} lines at most.`,
    errors,
  });
  return (target, key, descriptor) => {
    operation(target, key, descriptor);
    applyDecorators(
      IntQuery(
        'tail',
        { min: 0, max: MAX_TAIL },
        'Only the last N stored lines (then every new one when following)',
      ),
      TextQuery('since', 'Only lines since an RFC 3339 time, or since this many seconds ago'),
      TextQuery('follow', '`true`: keep the event stream open for new lines', ['true', 'false']),
    )(target, key, descriptor as PropertyDescriptor);
  };
}

/** What a logs route reads of its request: the query, whether events are asked for, and the reply (headers). */
export interface LogRequest {
  query: LogQuery;
  accept: string | undefined;
  reply: FastifyReply;
}

/** The handler's LogRequest; the reply stays Nest's to send (a page, or the event stream returned). */
export const LogRequestOf = createParamDecorator((_: unknown, context: ExecutionContext): LogRequest => {
  const http = context.switchToHttp();
  const request = http.getRequest<FastifyRequest>();
  const { tail, since, follow } = (request.query ?? {}) as LogQuery;
  return {
    query: { tail, since, follow },
    accept: request.headers.accept,
    reply: http.getResponse<FastifyReply>(),
  };
});
