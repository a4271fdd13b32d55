import { Injectable, type NestMiddleware } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Headers } from '@app/contracts';
import { requestContext } from '@app/observability';

const VALID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Runs each request inside its correlation context (taken from `x-correlation-id` or new) and echoes it. */
@Injectable()
export class CorrelationMiddleware implements NestMiddleware {
  use(req: IncomingMessage, res: ServerResponse, next: () => void): void {
    const given = req.headers[Headers.CorrelationId];
    const correlationId = typeof given === 'string' && VALID.test(given) ? given : randomUUID();
    res.setHeader(Headers.CorrelationId, correlationId);
    requestContext.run({ correlationId }, next);
  }
}
