import { describe, expect, it } from '@jest/globals';
import { DomainError } from '@app/contracts';
import type { Principal } from '../accounts/accounts.service.js';
import type { ApiKeyScope } from '../accounts/api-key-scope.js';
import type { ConsoleSessions } from '../sso/console-sessions.service.js';
import { admitRequest, authorize, presentedKey } from './auth.guard.js';
import type { AuthRule } from './auth.decorators.js';

type Request = Parameters<typeof presentedKey>[0];

function request(init: {
  authorization?: string;
  apiKey?: string;
  method?: string;
  params?: object;
}): Request {
  return {
    method: init.method ?? 'GET',
    headers: init.authorization === undefined ? {} : { authorization: init.authorization },
    query: init.apiKey === undefined ? {} : { api_key: init.apiKey },
    params: { ...init.params },
  };
}

/** A key of the user's own account: every role's right is theirs (`owner`), only the scope limits it. */
function principal(scope: ApiKeyScope, endpointIds: string[] = []): Principal {
  return {
    user: { id: 'u1' },
    key: { id: 'k1', scope, endpointIds },
    account: { id: 'u1', name: 'u1', kind: 'user' },
    role: 'owner',
  } as unknown as Principal;
}

function code(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    return (error as DomainError).code;
  }
}

describe('presentedKey', () => {
  const bearer: AuthRule = { key: 'bearer' };
  const raw: AuthRule = { key: 'raw-or-bearer' };
  const query: AuthRule = { key: 'query-or-bearer' };

  it.each([
    ['bearer', bearer, { authorization: 'Bearer abc' }, 'abc'],
    ['bearer, any case', bearer, { authorization: 'bearer abc' }, 'abc'],
    ['none', bearer, {}, null],
    ['blank', bearer, { authorization: '  ' }, null],
    ['raw on a queue route', raw, { authorization: 'abc' }, 'abc'],
    ['bearer on a queue route', raw, { authorization: 'Bearer abc' }, 'abc'],
    ['api_key on GraphQL', query, { apiKey: 'abc' }, 'abc'],
    ['bearer on GraphQL', query, { authorization: 'Bearer abc' }, 'abc'],
  ])('reads %s', (_label, rule, init, expected) => {
    expect(presentedKey(request(init), rule)).toBe(expected);
  });

  it.each([
    ['a raw key where bearer is required', bearer, 'abc'],
    ['another scheme', bearer, 'Basic YWJj'],
    ['a bare scheme', raw, 'Bearer'],
    ['two words', raw, 'a b'],
  ])('refuses %s with 401', (_label, rule, authorization) => {
    expect(code(() => presentedKey(request({ authorization }), rule))).toBe('UNAUTHENTICATED');
  });
});

describe('authorize, by role', () => {
  const member = (role: string, scope: ApiKeyScope = 'full') =>
    ({
      ...principal(scope),
      account: { id: 't1', name: 'research', kind: 'team' },
      role,
    }) as unknown as Principal;
  const pods: AuthRule = { key: 'bearer', resource: 'pods' };
  const message = (fn: () => unknown) => {
    try {
      fn();
      return undefined;
    } catch (error) {
      return (error as DomainError).message;
    }
  };

  it('lets a role do what ROLE_GRANTS allows, and names the role when it refuses', () => {
    expect(code(() => authorize(member('basic'), pods, request({ method: 'GET' })))).toBeUndefined();
    expect(message(() => authorize(member('basic'), pods, request({ method: 'POST' })))).toBe(
      'your role in team research is basic: it may not change pods',
    );
    expect(code(() => authorize(member('dev'), pods, request({ method: 'POST' })))).toBeUndefined();
    expect(code(() => authorize(member('billing'), pods, request({ method: 'GET' })))).toBe('FORBIDDEN');
  });

  it('checks the scope and the role both: a read key of an admin still only reads', () => {
    expect(code(() => authorize(member('admin', 'read'), pods, request({ method: 'POST' })))).toBe(
      'FORBIDDEN',
    );
  });

  it("refuses a route that names no resource to every role but a user's own account", () => {
    const unnamed: AuthRule = { key: 'bearer' };
    expect(code(() => authorize(member('admin'), unnamed, request({ method: 'GET' })))).toBe('FORBIDDEN');
    expect(code(() => authorize(principal('full'), unnamed, request({ method: 'GET' })))).toBeUndefined();
  });

  it("keeps the operators' routes to operator keys", () => {
    const operators: AuthRule = { key: 'bearer', resource: 'team', operator: true };
    expect(message(() => authorize(principal('full'), operators, request({ method: 'GET' })))).toMatch(
      /operators'/,
    );
    expect(
      code(() => authorize(principal('operator'), operators, request({ method: 'GET' }))),
    ).toBeUndefined();
  });
});

describe('authorize', () => {
  const rest: AuthRule = { key: 'bearer' };
  const queue: AuthRule = { key: 'raw-or-bearer', endpointParam: 'endpointId' };

  it.each([
    ['full, write', principal('full'), rest, 'POST', {}, undefined],
    ['read, read', principal('read'), rest, 'GET', {}, undefined],
    ['read, write', principal('read'), rest, 'DELETE', {}, 'FORBIDDEN'],
    [
      'read, explicit read access on POST',
      principal('read'),
      { ...rest, access: 'read' as const },
      'POST',
      {},
      undefined,
    ],
    [
      'endpoints, its endpoint',
      principal('endpoints', ['e1']),
      queue,
      'POST',
      { endpointId: 'e1' },
      undefined,
    ],
    [
      'endpoints, another endpoint',
      principal('endpoints', ['e1']),
      queue,
      'POST',
      { endpointId: 'e2' },
      'FORBIDDEN',
    ],
    ['endpoints, a non-queue route', principal('endpoints', ['e1']), rest, 'GET', {}, 'FORBIDDEN'],
    [
      'endpoints, a worker route of its endpoint',
      principal('endpoints', ['e1']),
      { ...queue, worker: true },
      'GET',
      { endpointId: 'e1' },
      'FORBIDDEN',
    ],
    [
      'endpoints, managing its endpoint (the webhook secret)',
      principal('endpoints', ['e1']),
      { ...queue, access: 'write' as const, manage: true },
      'GET',
      { endpointId: 'e1' },
      'FORBIDDEN',
    ],
    [
      'full, managing an endpoint',
      principal('full'),
      { ...queue, manage: true },
      'GET',
      { endpointId: 'e1' },
      undefined,
    ],
    [
      'worker, its worker route',
      principal('worker', ['e1']),
      { ...queue, worker: true },
      'GET',
      { endpointId: 'e1' },
      undefined,
    ],
    ['worker, a client route', principal('worker', ['e1']), queue, 'POST', { endpointId: 'e1' }, 'FORBIDDEN'],
    [
      'worker, another endpoint',
      principal('worker', ['e1']),
      { ...queue, worker: true },
      'GET',
      { endpointId: 'e2' },
      'FORBIDDEN',
    ],
  ])('%s', (_label, who, rule, method, params, expected) => {
    expect(code(() => authorize(who, rule, request({ method, params })))).toBe(expected);
  });
});

describe('admitRequest with console sessions', () => {
  const accounts = {
    authenticate: () => principal('full'),
  } as unknown as Parameters<typeof admitRequest>[0];
  const session = principal('full');
  let asked = 0;
  const sessions = {
    authenticate: () => {
      asked++;
      return Promise.resolve(session);
    },
  } as unknown as ConsoleSessions;
  const none = { authenticate: () => Promise.resolve(null) } as unknown as ConsoleSessions;

  it('a request with a key never looks at the session', async () => {
    asked = 0;
    const got = await admitRequest(
      accounts,
      request({ authorization: 'Bearer cpk_x' }),
      { key: 'bearer' },
      () => undefined,
      sessions,
    );
    expect(got).not.toBe(session);
    expect(asked).toBe(0);
  });

  it('a request without a key acts as its session, or is 401 without one', async () => {
    const req = request({});
    expect(await admitRequest(accounts, req, { key: 'bearer' }, () => undefined, sessions)).toBe(session);
    expect(req.principal).toBe(session);
    await expect(
      admitRequest(accounts, request({}), { key: 'bearer' }, () => undefined, none),
    ).rejects.toThrow(/missing API key/);
  });
});
