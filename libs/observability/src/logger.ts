import { pino, type Logger, type LoggerOptions } from 'pino';
import { requestContext } from './request-context.js';

/**
 * JSON logs on stdout, one object a line, each carrying the app name and the current correlation id.
 * Secrets are redacted by path wherever they might appear.
 */
export function createRootLogger(app: string, level: string): Logger {
  const options: LoggerOptions = {
    level,
    base: { app },
    timestamp: pino.stdTimeFunctions.isoTime,
    messageKey: 'msg',
    formatters: { level: (label) => ({ level: label }) },
    mixin() {
      const ctx = requestContext.current();
      return ctx ? { correlationId: ctx.correlationId, ...(ctx.userId ? { userId: ctx.userId } : {}) } : {};
    },
    redact: {
      paths: [
        'password',
        '*.password',
        '*.*.password',
        'req.headers.authorization',
        'req.query.api_key',
        'passwordSealed',
        '*.passwordSealed',
      ],
      censor: '[redacted]',
    },
  };
  return pino(options);
}
