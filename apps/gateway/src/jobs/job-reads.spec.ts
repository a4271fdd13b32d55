import { describe, expect, it, jest } from '@jest/globals';
import type { FastifyReply } from 'fastify';
import { DomainError, ErrorCode } from '@app/contracts';
import type { AccountsService, Principal } from '../accounts/accounts.service.js';
import { AUTH_RULE } from '../auth/auth.decorators.js';
import { RATE_LIMIT_POLICY } from '../rate-limit/rate-limit.decorators.js';
import type { RateLimiter } from '../rate-limit/rate-limiter.service.js';
import { JobReads, QUEUE_AUTH_RULE } from './job-reads.js';
import { JobsController } from './jobs.controller.js';
import type { JobsService } from './jobs.service.js';

const principal = (scope: string, endpointIds: string[] = []) =>
  ({ user: { id: 'u1' }, key: { id: 'k1', scope, endpointIds } }) as unknown as Principal;

function setup(authenticated: Principal | 'unknown' | 'revoked' = principal('full')) {
  const calls: string[] = [];
  const accounts = {
    authenticate: jest.fn((_key: string) => {
      calls.push('authenticate');
      return Promise.resolve(authenticated);
    }),
  };
  const rateLimits = {
    enforceRoute: jest.fn((..._args: unknown[]) => {
      calls.push('rate-limit');
      return Promise.resolve();
    }),
  };
  const view = { id: 'j1', status: 'COMPLETED' };
  const jobs = {
    status: jest.fn((..._args: unknown[]) => Promise.resolve(view)),
    statusSync: jest.fn((..._args: unknown[]) => Promise.resolve(view)),
  };
  const reads = new JobReads(
    accounts as unknown as AccountsService,
    rateLimits as unknown as RateLimiter,
    jobs as unknown as JobsService,
  );
  return { reads, accounts, rateLimits, jobs, calls, view };
}

const reply = { raw: { once: () => undefined } } as unknown as FastifyReply;

function request(init: { authorization?: string; endpointId?: string; jobId?: string; query?: object }) {
  return {
    method: 'GET',
    headers: init.authorization === undefined ? {} : { authorization: init.authorization },
    params: { endpointId: init.endpointId ?? 'ep1', jobId: init.jobId ?? 'j1' },
    query: { ...init.query },
  } as unknown as Parameters<JobReads['status']>[0];
}

/** The refusal of a read, whether it throws at once or rejects. */
async function failure(read: () => unknown): Promise<DomainError> {
  try {
    await read();
  } catch (error) {
    return error as DomainError;
  }
  throw new Error('expected a failure');
}

describe('JobReads (GET /status and /status-sync past Nest)', () => {
  it('uses the rule and the policy the controller declares for these routes', () => {
    expect(Reflect.getMetadata(AUTH_RULE, JobsController)).toEqual(QUEUE_AUTH_RULE);
    for (const name of ['status', 'statusSync'] as const) {
      const handler = Object.getOwnPropertyDescriptor(JobsController.prototype, name)!.value as object;
      expect(Reflect.getMetadata(RATE_LIMIT_POLICY, handler)).toEqual({ policy: 'queue.status' });
    }
  });

  it('reads with the raw key or a bearer one, and changes no expiry without ?ttl=', async () => {
    for (const authorization of ['cpk_abc', 'Bearer cpk_abc']) {
      const { reads, accounts, jobs, view } = setup();
      await expect(Promise.resolve(reads.status(request({ authorization }), reply))).resolves.toBe(view);
      expect(accounts.authenticate).toHaveBeenCalledWith('cpk_abc');
      expect(jobs.status).toHaveBeenCalledWith('ep1', 'j1', undefined, {
        userId: 'u1',
        keyId: 'k1',
        kind: 'user',
      });
    }
  });

  it('answers at once, without a promise, when the key, the counter and the view are all known here', () => {
    const { reads, accounts, rateLimits, jobs, view, calls } = setup();
    accounts.authenticate.mockImplementation(() => {
      calls.push('authenticate');
      return principal('full') as never;
    });
    rateLimits.enforceRoute.mockImplementation(() => {
      calls.push('rate-limit');
      return undefined as never;
    });
    jobs.status.mockImplementation(() => view as never);
    expect(reads.status(request({ authorization: 'k' }), reply)).toBe(view);
    expect(calls).toEqual(['authenticate', 'rate-limit']);
    // A refusal decided from known answers is thrown at once (the route sends it as a problem).
    accounts.authenticate.mockImplementation(() => 'revoked' as never);
    expect(() => reads.status(request({ authorization: 'k' }), reply)).toThrow(
      'this API key has been revoked',
    );
  });

  it('passes ?ttl= on, and refuses one out of range (422)', async () => {
    const { reads, jobs } = setup();
    await reads.status(request({ authorization: 'k', query: { ttl: '600000' } }), reply);
    expect(jobs.status).toHaveBeenCalledWith('ep1', 'j1', 600_000, expect.anything());
    const error = await failure(() =>
      reads.status(request({ authorization: 'k', query: { ttl: '5' } }), reply),
    );
    expect(error.code).toBe(ErrorCode.ValidationFailed);
  });

  it('waits 90 s by default on /status-sync, or what ?wait= says', async () => {
    const { reads, jobs } = setup();
    await reads.statusSync(request({ authorization: 'k' }), reply);
    await reads.statusSync(request({ authorization: 'k', query: { wait: '2000' } }), reply);
    expect(jobs.statusSync.mock.calls.map((call) => call[2])).toEqual([90_000, 2000]);
  });

  it.each([
    ['no key', undefined, principal('full'), 'missing API key: send Authorization: Bearer <key>'],
    ['an unknown key', 'k', 'unknown' as const, 'invalid API key'],
    ['a revoked key', 'k', 'revoked' as const, 'this API key has been revoked'],
  ])('answers %s 401 before counting it', async (_label, authorization, authenticated, detail) => {
    const { reads, rateLimits, jobs } = setup(authenticated);
    const error = await failure(() => reads.status(request({ authorization }), reply));
    expect([error.code, error.message]).toEqual([ErrorCode.Unauthenticated, detail]);
    expect(rateLimits.enforceRoute).not.toHaveBeenCalled();
    expect(jobs.status).not.toHaveBeenCalled();
  });

  it("counts a key of another endpoint's scope, then refuses it (403 with the RateLimit headers)", async () => {
    const { reads, rateLimits, calls } = setup(principal('endpoints', ['ep2']));
    const error = await failure(() => reads.status(request({ authorization: 'k' }), reply));
    expect(error.code).toBe(ErrorCode.Forbidden);
    expect(calls).toEqual(['authenticate', 'rate-limit']);
    expect(rateLimits.enforceRoute).toHaveBeenCalledWith('queue.status', expect.anything(), 'ep1', reply);
  });

  it.each([
    ['endpointId', { endpointId: 'ep\u0001' }],
    ['jobId', { jobId: 'j\u0000' }],
    ['ttl', { query: { ttl: '1\u0007' } }],
  ])('answers a control character in %s 400, after counting the request', async (name, init) => {
    const { reads, rateLimits, jobs } = setup();
    const error = await failure(() => reads.status(request({ authorization: 'k', ...init }), reply));
    expect([error.code, error.message]).toEqual([
      ErrorCode.BadRequest,
      `${name} must not contain control characters`,
    ]);
    expect(rateLimits.enforceRoute).toHaveBeenCalled();
    expect(jobs.status).not.toHaveBeenCalled();
  });
});
