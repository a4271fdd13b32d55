import type { LoggerService } from '@nestjs/common';
import type { Logger } from 'pino';

const BOOT_CONTEXTS = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory']);

/** Nest's logger interface on top of the process's pino logger: one JSON object a line. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly root: Logger) {}

  private write(
    level: 'info' | 'warn' | 'error' | 'debug' | 'trace' | 'fatal',
    message: unknown,
    rest: unknown[],
  ) {
    const context = typeof rest[rest.length - 1] === 'string' ? (rest.pop() as string) : undefined;
    const fields: Record<string, unknown> = context ? { context } : {};
    if (level === 'error' && typeof rest[0] === 'string' && rest[0].includes('\n')) fields.stack = rest[0];
    if (typeof message === 'object' && message !== null && !(message instanceof Error)) {
      const { msg, ...obj } = message as Record<string, unknown>;
      this.root[level]({ ...fields, ...obj }, typeof msg === 'string' ? msg : undefined);
    } else if (message instanceof Error) {
      this.root[level]({ ...fields, err: message }, message.message);
    } else {
      this.root[level](fields, String(message));
    }
  }

  log(message: unknown, ...rest: unknown[]): void {
    // Nest's own start-up chatter (one line per module and route) is debug detail, not operations news.
    const context = rest[rest.length - 1];
    this.write(typeof context === 'string' && BOOT_CONTEXTS.has(context) ? 'debug' : 'info', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.write('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.write('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('trace', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.write('fatal', message, rest);
  }
}
