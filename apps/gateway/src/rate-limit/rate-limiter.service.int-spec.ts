import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import pg from 'pg';
import { parseList } from 'structured-headers';
import { DomainError, ErrorCode } from '@app/contracts';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/test-database.js';
import type { Principal } from '../accounts/accounts.service.js';
import { GatewayConfig } from '../gateway.config.js';
import { RateLimitCountersRepository } from './rate-limit-counters.repository.js';
import { NoRateLimit, RateLimitPolicy } from './rate-limit.decorators.js';
import { RateLimiter } from './rate-limiter.service.js';

/**
 * The limiter as AuthGuard drives it, on real Postgres, for what the e2e test cannot reach yet: the queue
 * routes' per-endpoint policies (their controllers come later; these stand-ins carry the same decorators).
 */

@RateLimitPolicy('queue.run')
class QueueRunController {
  run(): void {}
  @RateLimitPolicy('queue.status')
  status(): void {}
  @NoRateLimit()
  jobTake(): void {}
  @RateLimitPolicy('queue.cancel', { endpointParam: 'id' })
  cancel(): void {}
}

class RestController {
  list(): void {}
}

interface Call {
  context: ExecutionContext;
  headers: Map<string, string>;
}

function call(controller: new () => object, method: string, params: Record<string, string> = {}): Call {
  const headers = new Map<string, string>();
  const reply = {
    header(name: string, value: string) {
      headers.set(name, value);
      return reply;
    },
  };
  const handler = (controller.prototype as Record<string, () => void>)[method];
  const context = {
    getType: () => 'http',
    getHandler: () => handler,
    getClass: () => controller,
    switchToHttp: () => ({ getRequest: () => ({ params }), getResponse: () => reply }),
  } as unknown as ExecutionContext;
  return { context, headers };
}

function principal(userId: string, rateLimitExempt = false): Principal {
  return { user: { id: userId, name: userId, rateLimitExempt, createdAt: new Date() }, key: {} } as Principal;
}

/** `{minute: {r, t}, ...}` parsed from the RateLimit field. */
function remaining(headers: Map<string, string>): Record<string, number> {
  const field = headers.get('RateLimit');
  if (field === undefined) throw new Error('no RateLimit header');
  return Object.fromEntries(
    parseList(field).map(([name, params]) => [name as string, params.get('r') as number]),
  );
}

const BY_ENDPOINT = { endpointParam: 'endpointId' };

let db: TestDatabase;
const repositories: RateLimitCountersRepository[] = [];
const limiters: RateLimiter[] = [];

function limiter(env: Partial<GatewayConfig> = {}): RateLimiter {
  const config = Object.assign(new GatewayConfig(), { DATABASE_URL: db.url }, env);
  const counters = new RateLimitCountersRepository(config);
  repositories.push(counters);
  const limits = new RateLimiter(new Reflector(), counters, config);
  limiters.push(limits);
  return limits;
}

async function refusal(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error('expected the request to be refused');
}

beforeAll(async () => {
  db = await createTestDatabase('rate_limiter', { apps: ['gateway'] });
});

afterAll(async () => {
  for (const limits of limiters) await limits.beforeApplicationShutdown();
  await Promise.all(repositories.map((r) => r.onApplicationShutdown()));
  await db?.drop();
});

describe('RateLimiter', () => {
  it('counts the queue policies per user and endpoint, and names both in the 429', async () => {
    const limits = limiter({ RATE_LIMIT_QUEUE_RUN: '2,100,1000' });
    const user = principal('u-queue');
    for (let i = 0; i < 2; i++) {
      const ok = call(QueueRunController, 'run', { endpointId: 'ep-a' });
      await limits.enforce(ok.context, user, BY_ENDPOINT);
      expect(remaining(ok.headers).minute).toBe(1 - i);
      expect(ok.headers.get('RateLimit-Policy')).toBe(
        '"minute";q=2;w=60, "hour";q=100;w=3600, "day";q=1000;w=86400',
      );
    }
    const refused = call(QueueRunController, 'run', { endpointId: 'ep-a' });
    const error = await refusal(limits.enforce(refused.context, user, BY_ENDPOINT));
    expect(error.code).toBe(ErrorCode.RateLimited);
    expect(error.message).toMatch(
      /the minute window of queue\.run on endpoint ep-a allows 2 requests per 60 s/,
    );
    expect(Number(refused.headers.get('Retry-After'))).toBe(
      Number(/"minute";r=0;t=(\d+)/.exec(refused.headers.get('RateLimit') ?? '')?.[1]),
    );

    const otherEndpoint = call(QueueRunController, 'run', { endpointId: 'ep-b' });
    await limits.enforce(otherEndpoint.context, user, BY_ENDPOINT);
    expect(remaining(otherEndpoint.headers).minute).toBe(1);
    const otherPolicy = call(QueueRunController, 'status', { endpointId: 'ep-a' });
    await limits.enforce(otherPolicy.context, user, BY_ENDPOINT);
    expect(remaining(otherPolicy.headers).minute).toBe(6000 - 1);
  });

  it('takes the endpoint from the parameter the decorator names', async () => {
    const limits = limiter({ RATE_LIMIT_QUEUE_CANCEL: '1,10,10' });
    const first = call(QueueRunController, 'cancel', { id: 'ep-c' });
    await limits.enforce(first.context, principal('u-param'), {});
    const second = call(QueueRunController, 'cancel', { id: 'ep-c' });
    expect((await refusal(limits.enforce(second.context, principal('u-param'), {}))).message).toContain(
      'queue.cancel on endpoint ep-c',
    );
  });

  it('refuses to guess when a per-endpoint route names no endpoint parameter', async () => {
    const limits = limiter();
    const { context } = call(QueueRunController, 'run', { endpointId: 'ep-a' });
    await expect(limits.enforce(context, principal('u-noparam'), {})).rejects.toThrow(
      /rate-limit policy queue\.run names no endpoint parameter/,
    );
  });

  it('counts routes without a policy under rest, per user only', async () => {
    const limits = limiter({ RATE_LIMIT_REST: '5,50,500' });
    const one = call(RestController, 'list');
    await limits.enforce(one.context, principal('u-rest'), {});
    expect(remaining(one.headers)).toEqual({ minute: 4, hour: 49, day: 499 });
    const two = call(RestController, 'list', { endpointId: 'ignored' });
    await limits.enforce(two.context, principal('u-rest'), BY_ENDPOINT);
    expect(remaining(two.headers).minute).toBe(3);
  });

  it('leaves @NoRateLimit routes, exempt users and a disabled limiter alone: no count, no headers', async () => {
    const limits = limiter({ RATE_LIMIT_REST: '1,1,1', RATE_LIMIT_QUEUE_RUN: '1,1,1' });
    const worker = call(QueueRunController, 'jobTake', { endpointId: 'ep-a' });
    const exempt = call(RestController, 'list');
    for (let i = 0; i < 3; i++) {
      await limits.enforce(worker.context, principal('u-alone'), BY_ENDPOINT);
      await limits.enforce(exempt.context, principal('u-exempt', true), {});
    }
    const off = limiter({ RATE_LIMITS_ENABLED: false, RATE_LIMIT_REST: '0,0,0' });
    const disabled = call(RestController, 'list');
    await off.enforce(disabled.context, principal('u-off'), {});
    expect([...worker.headers.keys(), ...exempt.headers.keys(), ...disabled.headers.keys()]).toEqual([]);
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    const { rows } = await admin.query(
      `SELECT user_id FROM gateway.rate_limit_counters WHERE user_id IN ('u-alone', 'u-exempt', 'u-off')`,
    );
    await admin.end();
    expect(rows).toEqual([]);
  });

  it('fails open on a store failure, then skips the store for the backoff, then asks it again', async () => {
    const limits = limiter({ RATE_LIMIT_STORE_TIMEOUT_MS: 150, RATE_LIMIT_STORE_BACKOFF_MS: 500 });
    const locker = new pg.Client({ connectionString: db.url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE gateway.rate_limit_counters IN ACCESS EXCLUSIVE MODE');
      let started = performance.now();
      const first = call(RestController, 'list');
      await limits.enforce(first.context, principal('u-down'), {});
      expect(performance.now() - started).toBeLessThan(1000);
      started = performance.now();
      const during = call(RestController, 'list');
      await limits.enforce(during.context, principal('u-down'), {});
      expect(performance.now() - started).toBeLessThan(50);
      expect([...first.headers.keys(), ...during.headers.keys()]).toEqual([]);
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    await new Promise((resolve) => setTimeout(resolve, 600));
    const after = call(RestController, 'list');
    await limits.enforce(after.context, principal('u-down'), {});
    expect(remaining(after.headers).minute).toBe(299);
  });
});
