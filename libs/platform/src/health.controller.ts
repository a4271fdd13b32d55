import { Controller, Get, HttpCode, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { DatabaseHealth } from '@app/database';
import { NatsClient } from '@app/messaging';
import { startupTasks } from '@app/observability';
import { Public } from './public.decorator.js';

/**
 * `/healthz` (the process is alive), `/readyz` (start-up finished: consumers bound and, in the scheduler, the fleet
 * loaded; NATS and Postgres reachable, migrations applied). `/metrics` is on a port of its own (metrics-server.ts).
 */
@Public()
@Controller()
export class HealthController {
  constructor(
    private readonly database: DatabaseHealth,
    private readonly nats: NatsClient,
  ) {}

  @Get('healthz')
  @HttpCode(200)
  alive(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('readyz')
  async ready(@Res({ passthrough: true }) reply: FastifyReply): Promise<Record<string, unknown>> {
    const startup = startupCheck();
    // While starting, answer without a database round trip: probes come often then, and would slow the start.
    const database = startup ? 'not checked while starting' : await this.database.check();
    const nats = this.nats.isConnected() ? null : 'NATS disconnected';
    const ok = !startup && !database && !nats;
    void reply.status(ok ? 200 : 503);
    return {
      status: ok ? 'ready' : 'unavailable',
      checks: { startup: startup ?? 'ok', postgres: database ?? 'ok', nats: nats ?? 'ok' },
    };
  }
}

/** Null once every start-up task has finished, otherwise what is still running or what failed. */
function startupCheck(): string | null {
  const failed = startupTasks.failed();
  if (failed.length) return `failed: ${failed.map(([name, why]) => `${name} (${why})`).join('; ')}`;
  const unfinished = startupTasks.unfinished();
  return unfinished.length ? `starting: ${unfinished.join(', ')}` : null;
}
