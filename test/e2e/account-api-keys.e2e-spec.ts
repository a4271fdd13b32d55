import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { MAX_ACTIVE_API_KEYS, type ApiKeyList, type CreatedApiKey } from '@app/contracts';
import { createKey, userWithKey, type TestKey } from '../support/accounts.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { api } from './clusters-fixtures.js';
import { client, expectProblem } from './pods.e2e-helpers.js';

/**
 * `POST` and `DELETE /v2/account/api-keys`: a full key makes and revokes its user's keys (docs/adr/0029), on two
 * gateway replicas, so a revocation is seen to reach the one that did not make it.
 */
describe('the account API keys a user makes and revokes', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let sql: pg.Pool;
  let alice: TestKey;
  let aliceRead: TestKey;
  let bob: TestKey;

  const create = (key: string, body: unknown) =>
    client(system, key)<CreatedApiKey>('POST', '/v2/account/api-keys', body);
  const list = (key: string) => client(system, key)<ApiKeyList>('GET', '/v2/account/api-keys');
  const revoke = (key: string, id: string) => client(system, key)('DELETE', `/v2/account/api-keys/${id}`);
  /** The key's listing as one replica of the gateway answers it. */
  const listOn = (key: string, replica: number) =>
    api<ApiKeyList>(system.url('gateway', replica), key, 'GET', '/v2/account/api-keys');

  /** Polls until the key is refused by that replica (the account event is delivered asynchronously). */
  async function refusedBy(key: string, replica: number): Promise<number> {
    const deadline = Date.now() + 2_000;
    let status = 0;
    while (Date.now() < deadline) {
      status = (await listOn(key, replica)).status;
      if (status === 401) return status;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return status;
  }

  beforeAll(async () => {
    db = await createTestDatabase('account_api_keys', { apps: ['gateway'] });
    // A cache TTL far longer than the test: a replica refuses a revoked key only because the event told it.
    system = await startApps({
      apps: ['gateway'],
      databaseUrl: db.url,
      replicas: { gateway: 2 },
      appEnv: { gateway: { AUTH_CACHE_TTL_MS: '300000' } },
    });
    sql = new pg.Pool({ connectionString: db.url, max: 1 });
    alice = await userWithKey(db.url, 'alice');
    aliceRead = await createKey(db.url, 'alice', 'read');
    bob = await userWithKey(db.url, 'bob');
  });

  afterAll(async () => {
    await sql?.end();
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  });

  it('a full key creates a key (201), shown once, that works at once on every replica for its scope only', async () => {
    const made = await create(alice.key, { name: 'laptop', scope: 'read' });
    expect(made.status).toBe(201);
    expect(made.body).toEqual({
      id: expect.stringMatching(/^key_/),
      name: 'laptop',
      prefix: made.body.key.slice(0, 12),
      scope: 'read',
      endpointIds: [],
      createdAt: expect.any(String),
      revokedAt: null,
      teamId: null,
      key: expect.stringMatching(/^cpk_[A-Za-z0-9_-]{43}$/),
    });
    for (const replica of [0, 1]) {
      const mine = await listOn(made.body.key, replica);
      expect(mine.status).toBe(200);
      expect(mine.body.current.id).toBe(made.body.id);
    }
    // Read scope: it may not write, so it may not create a key either.
    expectProblem(await create(made.body.key, { name: 'more', scope: 'read' }), 403, /read-only/);

    // Stored as the CLI stores keys: the SHA-256 only.
    const row = await sql.query<{ key_hash: string }>('SELECT key_hash FROM gateway.api_keys WHERE id = $1', [
      made.body.id,
    ]);
    const { createHash } = await import('node:crypto');
    expect(row.rows[0].key_hash).toBe(createHash('sha256').update(made.body.key).digest('hex'));

    // The secret is never in a later answer.
    const listed = await list(alice.key);
    expect(listed.text).not.toContain(made.body.key);
    expect(listed.text).not.toContain(made.body.key.slice(12));
    expect(listed.body.apiKeys.map((k) => k.id)).toContain(made.body.id);
    expect(system.logs('gateway', 0) + system.logs('gateway', 1)).not.toContain(made.body.key.slice(12));
  });

  it('a new full key may create keys; an endpoints key is made only with endpoints, and cannot create keys', async () => {
    const full = await create(alice.key, { name: 'ci', scope: 'full' });
    expect(full.status).toBe(201);
    const endpoints = await create(full.body.key, { name: 'jobs', scope: 'endpoints', endpointIds: ['ep1'] });
    expect(endpoints.status).toBe(201);
    expect(endpoints.body.endpointIds).toEqual(['ep1']);
    expectProblem(await create(endpoints.body.key, { name: 'x', scope: 'read' }), 403, /endpoint/);
    expectProblem(await list(endpoints.body.key), 403);
  });

  it('a read key is refused (403 problem+json), whatever scope it asks for', async () => {
    for (const scope of ['read', 'full']) {
      expectProblem(await create(aliceRead.key, { name: 'x', scope }), 403, /read-only/);
    }
    expectProblem(await revoke(aliceRead.key, alice.id), 403, /read-only/);
  });

  it('validation: failed constraints and unknown properties are 422, conflicting fields 400, each with errors', async () => {
    const worker = await create(alice.key, { name: 'w', scope: 'worker', endpointIds: ['ep1'] });
    expectProblem(worker, 422);
    expect(worker.body).toMatchObject({ errors: [expect.stringMatching(/scope/)] });

    const invalid = await create(alice.key, { name: '', scope: 'admin', extra: 1 });
    expectProblem(invalid, 422);
    const errors = (invalid.body as unknown as { errors: string[] }).errors;
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/name/),
        expect.stringMatching(/scope/),
        expect.stringMatching(/extra/),
      ]),
    );

    const noEndpoints = await create(alice.key, { name: 'jobs', scope: 'endpoints' });
    expectProblem(noEndpoints, 400, /at least one endpoint/);
    expect(noEndpoints.body).toMatchObject({ errors: [expect.stringMatching(/^endpointIds/)] });
    expectProblem(await create(alice.key, { name: 'r', scope: 'read', endpointIds: ['ep1'] }), 400);
  });

  it(`at most ${MAX_ACTIVE_API_KEYS} active keys per user: 409, and room again after a revocation`, async () => {
    const carol = await userWithKey(db.url, 'carol');
    const made: string[] = [];
    for (let i = 1; i < MAX_ACTIVE_API_KEYS; i++) {
      const reply = await create(carol.key, { name: `k${i}`, scope: 'read' });
      expect(reply.status).toBe(201);
      made.push(reply.body.id);
    }
    const over = await create(carol.key, { name: 'one too many', scope: 'read' });
    expectProblem(over, 409, new RegExp(`${MAX_ACTIVE_API_KEYS} active API keys`));
    expect((await revoke(carol.key, made[0])).status).toBe(204);
    expect((await create(carol.key, { name: 'again', scope: 'read' })).status).toBe(201);
  });

  it('revoking an own key: 204, then 401 on every replica at once; a second revocation is 404', async () => {
    const made = await create(alice.key, { name: 'to revoke', scope: 'full' });
    // Cached as valid on both replicas first.
    expect((await listOn(made.body.key, 0)).status).toBe(200);
    expect((await listOn(made.body.key, 1)).status).toBe(200);

    const revoked = await revoke(alice.key, made.body.id);
    expect(revoked.status).toBe(204);
    expect(revoked.text).toBe('');
    expect((await listOn(made.body.key, 0)).status).toBe(401);
    expect(await refusedBy(made.body.key, 1)).toBe(401);
    expectProblem(await revoke(alice.key, made.body.id), 404);

    const listed = (await list(alice.key)).body.apiKeys.find((k) => k.id === made.body.id);
    expect(listed?.revokedAt).toEqual(expect.any(String));
  });

  it('a key may revoke itself: that request succeeds, the next is 401', async () => {
    const made = await create(alice.key, { name: 'self', scope: 'full' });
    expect((await revoke(made.body.key, made.body.id)).status).toBe(204);
    expect((await listOn(made.body.key, 0)).status).toBe(401);
    expect(await refusedBy(made.body.key, 1)).toBe(401);
  });

  it("another user's key, a worker key, an unknown or malformed id: 404, and the other user's key still works", async () => {
    expectProblem(await revoke(alice.key, bob.id), 404);
    expect((await list(bob.key)).status).toBe(200);
    expectProblem(await revoke(bob.key, alice.id), 404);
    expect((await list(alice.key)).status).toBe(200);

    const worker = await sql.query<{ id: string }>(
      `INSERT INTO gateway.api_keys (id, user_id, account_id, name, key_prefix, key_hash, scope, endpoint_ids,
                                     created_at)
       VALUES ('key_workerofalice0001', $1, $1, 'worker:ep1', 'cpk_worker00', 'hash-of-a-worker-key', 'worker',
               '{ep1}', now()) RETURNING id`,
      [alice.userId],
    );
    expectProblem(await revoke(alice.key, worker.rows[0].id), 404);
    const still = await sql.query<{ revoked_at: Date | null }>(
      'SELECT revoked_at FROM gateway.api_keys WHERE id = $1',
      [worker.rows[0].id],
    );
    expect(still.rows[0].revoked_at).toBeNull();

    expectProblem(await revoke(alice.key, 'key_doesnotexist00000000'), 404);
    expectProblem(await revoke(alice.key, encodeURIComponent("'; DROP TABLE x;--")), 404);
    expectProblem(await revoke(alice.key, 'x'.repeat(200)), 404);
  });
});
