import { describe, expect, it, jest } from '@jest/globals';
import type { FastifyReply } from 'fastify';
import type { DatabaseHealth } from '@app/database';
import type { NatsClient } from '@app/messaging';
import { startupTasks } from '@app/observability';
import { HealthController } from './health.controller.js';

/** `/readyz` and the start-up tasks: 503 while one runs or after one failed, 200 once all are done. */

function controller(databaseCheck: () => Promise<string | null>) {
  const database = { check: jest.fn(databaseCheck) };
  const nats = { isConnected: () => true };
  return {
    database,
    health: new HealthController(database as unknown as DatabaseHealth, nats as unknown as NatsClient),
  };
}

function reply() {
  const status = jest.fn();
  return { status, reply: { status } as unknown as FastifyReply };
}

describe('HealthController /readyz', () => {
  it('answers 503 naming the running start-up tasks, without a database round trip, then 200', async () => {
    let finish!: () => void;
    const fleet = startupTasks.run('fleet', () => new Promise<void>((resolve) => (finish = resolve)));
    const { health, database } = controller(() => Promise.resolve(null));

    const starting = reply();
    expect(await health.ready(starting.reply)).toEqual({
      status: 'unavailable',
      checks: { startup: 'starting: fleet', postgres: 'not checked while starting', nats: 'ok' },
    });
    expect(starting.status).toHaveBeenCalledWith(503);
    expect(database.check).not.toHaveBeenCalled();

    finish();
    await fleet;
    const ready = reply();
    expect(await health.ready(ready.reply)).toEqual({
      status: 'ready',
      checks: { startup: 'ok', postgres: 'ok', nats: 'ok' },
    });
    expect(ready.status).toHaveBeenCalledWith(200);
  });

  it('answers 503 naming a failed start-up task and why', async () => {
    await startupTasks.run('consumers', () => Promise.reject(new Error('stream refused')));
    const { health } = controller(() => Promise.resolve(null));
    const failed = reply();
    expect(await health.ready(failed.reply)).toMatchObject({
      status: 'unavailable',
      checks: { startup: 'failed: consumers (stream refused)' },
    });
    expect(failed.status).toHaveBeenCalledWith(503);
  });
});
