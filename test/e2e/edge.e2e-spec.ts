import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { createKey, createUser, revokeKey, userWithKey, type TestKey } from '../support/accounts.js';
import { ROOT } from '../support/paths.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { postLarge } from './jobs.e2e-helpers.js';

interface Reply {
  status: number;
  contentType: string;
  body: Record<string, unknown>;
  text: string;
}

/**
 * The edge every route shares, over the running gateway and pod-lifecycle: authentication per route family,
 * key scopes, ownership, and errors as application/problem+json without stack traces.
 */
describe('the edge', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let alice: TestKey;
  let bob: TestKey;
  let aliceRead: TestKey;
  let aliceEndpoints: TestKey;
  let revoked: TestKey;
  let aliceCredentialId: string;

  async function call(
    method: string,
    path: string,
    init: { auth?: string; body?: string; type?: string } = {},
  ) {
    const headers: Record<string, string> = {};
    if (init.auth !== undefined) headers.authorization = init.auth;
    if (init.body !== undefined) headers['content-type'] = init.type ?? 'application/json';
    const response = await fetch(`${system.url('gateway')}${path}`, { method, headers, body: init.body });
    const text = await response.text();
    let body: Record<string, unknown>;
    try {
      body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      body = {};
    }
    const reply: Reply = {
      status: response.status,
      contentType: response.headers.get('content-type') ?? '',
      body,
      text,
    };
    return reply;
  }

  const bearer = (key: TestKey) => `Bearer ${key.key}`;

  function expectProblem(reply: Reply, status: number, detail?: RegExp): void {
    expect(reply.status).toBe(status);
    expect(reply.contentType).toMatch(/^application\/problem\+json/);
    expect(reply.body).toEqual(
      expect.objectContaining({ title: expect.any(String), status, detail: expect.any(String) }),
    );
    if (detail) expect(reply.body.detail).toMatch(detail);
    expect(reply.text).not.toMatch(/\bat .+:\d+:\d+|node_modules|\.ts:\d+/);
  }

  beforeAll(async () => {
    db = await createTestDatabase('edge', { apps: ['gateway', 'pod-lifecycle'] });
    system = await startApps({ apps: ['gateway', 'pod-lifecycle'], databaseUrl: db.url });
    alice = await userWithKey(db.url, 'alice');
    bob = await userWithKey(db.url, 'bob');
    aliceRead = await createKey(db.url, 'alice', 'read');
    aliceEndpoints = await createKey(db.url, 'alice', 'endpoints', ['ep-allowed']);
    await createUser(db.url, 'mallory');
    revoked = await createKey(db.url, 'mallory');
    await revokeKey(db.url, revoked.id);
    const created = await call('POST', '/v1/containerregistryauth', {
      auth: bearer(alice),
      body: JSON.stringify({ name: 'alice-registry', username: 'alice', password: 'hunter2' }),
    });
    expect(created.status).toBe(201);
    aliceCredentialId = String(created.body.id);
  });

  afterAll(async () => {
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  });

  describe('authentication (401) on the /v1 bearer family', () => {
    it.each([
      ['no key', undefined, /missing API key/],
      ['an empty header', '', /missing API key/],
      ['a malformed header', 'Token abc', /malformed Authorization header/],
      ['a raw key where bearer is required', 'cpk_raw-without-scheme', /malformed Authorization header/],
      ['an unknown key', `Bearer cpk_${'A'.repeat(43)}`, /invalid API key/],
      ['a key of the wrong shape', 'Bearer not-a-key', /invalid API key/],
    ])('%s → 401', async (_label, auth, detail) => {
      expectProblem(await call('GET', '/v1/containerregistryauth', { auth }), 401, detail);
    });

    it('a revoked key → 401', async () => {
      expectProblem(
        await call('GET', '/v1/containerregistryauth', { auth: bearer(revoked) }),
        401,
        /revoked/,
      );
    });

    it('public health routes need no key', async () => {
      const health = await fetch(`${system.url('gateway')}/healthz`);
      expect(health.status).toBe(200);
      const ready = await fetch(`${system.url('gateway')}/readyz`);
      expect(await ready.json()).toEqual({
        status: 'ready',
        checks: { startup: 'ok', postgres: 'ok', nats: 'ok' },
      });
    });
  });

  describe('authorisation (403)', () => {
    it('a read-only key may read', async () => {
      const list = await call('GET', '/v1/containerregistryauth', { auth: bearer(aliceRead) });
      expect(list.status).toBe(200);
      expect(list.body).toEqual([{ id: aliceCredentialId, name: 'alice-registry' }]);
    });

    it.each([
      ['POST', '/v1/containerregistryauth', JSON.stringify({ name: 'n', username: 'u', password: 'p' })],
      ['DELETE', '/v1/containerregistryauth/whatever', undefined],
    ])('a read-only key on a write (%s %s) → 403', async (method, path, body) => {
      expectProblem(await call(method, path, { auth: bearer(aliceRead), body }), 403, /read-only/);
    });

    it('an endpoint-restricted key outside its endpoints → 403', async () => {
      expectProblem(
        await call('GET', '/v1/containerregistryauth', { auth: bearer(aliceEndpoints) }),
        403,
        /ep-allowed/,
      );
    });

    it("another user's resource → 403, and it is left untouched", async () => {
      expectProblem(
        await call('GET', `/v1/containerregistryauth/${aliceCredentialId}`, { auth: bearer(bob) }),
        403,
        /another user/,
      );
      expectProblem(
        await call('DELETE', `/v1/containerregistryauth/${aliceCredentialId}`, { auth: bearer(bob) }),
        403,
        /another user/,
      );
      const bobs = await call('GET', '/v1/containerregistryauth', { auth: bearer(bob) });
      expect(bobs.body).toEqual([]);
      const still = await call('GET', `/v1/containerregistryauth/${aliceCredentialId}`, {
        auth: bearer(alice),
      });
      expect(still.status).toBe(200);
    });

    it('an unknown id → 404', async () => {
      expectProblem(
        await call('GET', '/v1/containerregistryauth/nope', { auth: bearer(alice) }),
        404,
        /nope/,
      );
    });
  });

  describe('errors as problem+json', () => {
    it('an unknown property → 422 listing it, and nothing is created', async () => {
      const reply = await call('POST', '/v1/containerregistryauth', {
        auth: bearer(alice),
        body: JSON.stringify({ name: 'x', username: 'u', password: 'p', colour: 'blue' }),
      });
      expectProblem(reply, 422);
      expect(reply.body.errors).toEqual(['colour: property colour should not exist']);
      // v1 clients (runpodctl) read `message`; v2 answers the problem alone.
      expect(reply.body.message).toBe(
        'the request failed validation: colour: property colour should not exist',
      );
      const v2 = await call('GET', '/v2/no/such/route/here', { auth: bearer(alice) });
      expectProblem(v2, 404);
      expect(v2.body.message).toBeUndefined();
      const list = await call('GET', '/v1/containerregistryauth', { auth: bearer(alice) });
      expect((list.body as unknown as unknown[]).length).toBe(1);
    });

    it('a failed constraint → 422 with one entry per failure', async () => {
      const reply = await call('POST', '/v1/containerregistryauth', {
        auth: bearer(alice),
        body: JSON.stringify({ name: '', username: 'u' }),
      });
      expectProblem(reply, 422);
      expect(reply.body.errors).toEqual(
        expect.arrayContaining([expect.stringMatching(/^name /), expect.stringMatching(/^password /)]),
      );
    });

    it('a value of the wrong kind → one error for its field, not one per range check too', async () => {
      const reply = await call('POST', '/v1/pods', {
        auth: bearer(alice),
        body: JSON.stringify({
          name: 'p',
          imageName: 'alpine:3',
          gpuTypeIds: ['NVIDIA A40'],
          gpuCount: 'two',
        }),
      });
      expectProblem(reply, 422);
      expect(reply.body.errors).toEqual(['gpuCount must be an integer number']);
      expect(reply.body.message).toBe('the request failed validation: gpuCount must be an integer number');
    });

    it('an empty body sent as JSON is no body: 422 naming the missing fields, not a parse error', async () => {
      const reply = await call('POST', '/v1/containerregistryauth', { auth: bearer(alice), body: '' });
      expectProblem(reply, 422);
      expect(reply.body.errors).toEqual(expect.arrayContaining([expect.stringMatching(/^name /)]));
    });

    it('malformed JSON → 400', async () => {
      expectProblem(
        await call('POST', '/v1/containerregistryauth', { auth: bearer(alice), body: '{"name": ' }),
        400,
        /JSON/,
      );
    });

    it('an unknown route → 404 in the same format', async () => {
      expectProblem(
        await call('GET', '/v1/nothing-here', { auth: bearer(alice) }),
        404,
        /no route GET \/v1\/nothing-here/,
      );
    });

    it("a body over its route's limit → 413 naming the limit and what was received", async () => {
      const reply = await postLarge(
        `${system.url('gateway')}/v2/any-endpoint/run`,
        bearer(alice),
        JSON.stringify({ input: 'z'.repeat(12 * 1024 * 1024) }),
      );
      expect(reply.status).toBe(413);
      expect(reply.contentType).toMatch(/^application\/problem\+json/);
      expect(reply.body).toMatchObject({
        detail: "request body is larger than this route's limit of 10 MB (10485760 bytes): received 12 MB",
      });
    });

    it('the root redirects to the console, with no key', async () => {
      const response = await fetch(`${system.url('gateway')}/`, { redirect: 'manual' });
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toBe('/console/');
    });

    it('every response carries a correlation id, taken from the request when given', async () => {
      const response = await fetch(`${system.url('gateway')}/healthz`, {
        headers: { 'x-correlation-id': 'abc-123' },
      });
      expect(response.headers.get('x-correlation-id')).toBe('abc-123');
    });

    it('the password never reaches a log line', () => {
      const logs = system.logs('gateway') + system.logs('pod-lifecycle');
      expect(logs).not.toContain('hunter2');
    });
  });

  describe('config', () => {
    it('an app without DATABASE_URL stops at boot with one line naming it', () => {
      const result = spawnSync(process.execPath, [join(ROOT, 'dist/apps/pod-lifecycle/server.mjs')], {
        env: { PATH: process.env.PATH },
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(result.status).toBe(1);
      const lines = result.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^config: DATABASE_URL is not set/);
    });

    it('an invalid value is named with the reason', () => {
      const result = spawnSync(process.execPath, [join(ROOT, 'dist/apps/pod-lifecycle/server.mjs')], {
        env: { PATH: process.env.PATH, DATABASE_URL: 'postgres://x/y', HTTP_PORT: 'eighty' },
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(result.status).toBe(1);
      expect(result.stderr.trim()).toMatch(/^config: HTTP_PORT="eighty" is invalid: /);
    });
  });
});
