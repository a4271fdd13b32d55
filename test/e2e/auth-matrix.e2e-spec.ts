import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createKey, createUser, revokeKey, userWithKey, type TestKey } from '../support/accounts.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';

interface Reply {
  status: number;
  contentType: string;
  body: Record<string, unknown>;
}

type Family = 'v2' | 'v1' | 'queue' | 'graphql';

/**
 * The 401/403 matrix of the interface over every route family, against all five apps: /v2 REST (bearer), /v1
 * (bearer), the queue routes /v2/{endpoint_id}/… (raw key or bearer) and /graphql (?api_key= or bearer).
 */
describe('authentication and authorisation over every route family', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let alice: TestKey;
  let aliceRead: TestKey;
  let aliceOtherEndpoint: TestKey;
  let aliceThisEndpoint: TestKey;
  let bob: TestKey;
  let revoked: TestKey;
  let endpointId: string;
  let clusterId: string;
  let credentialId: string;

  async function send(
    method: string,
    path: string,
    auth: string | undefined,
    body?: unknown,
  ): Promise<Reply> {
    const headers: Record<string, string> = {};
    if (auth !== undefined) headers.authorization = auth;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${system.url('gateway')}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: Record<string, unknown>;
    try {
      parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      parsed = {};
    }
    return { status: response.status, contentType: response.headers.get('content-type') ?? '', body: parsed };
  }

  const graphql = (query: string, auth?: string, apiKey?: string): Promise<Reply> =>
    send('POST', `/graphql${apiKey === undefined ? '' : `?api_key=${encodeURIComponent(apiKey)}`}`, auth, {
      query,
    });

  /** A read and a write of each family, made with the given Authorization header (or ?api_key= for GraphQL). */
  function read(family: Family, auth: string | undefined): Promise<Reply> {
    switch (family) {
      case 'v2':
        return send('GET', '/v2/clusters', auth);
      case 'v1':
        return send('GET', '/v1/containerregistryauth', auth);
      case 'queue':
        return send('GET', `/v2/${endpointId}/health`, auth);
      case 'graphql':
        return graphql('query { myself { endpoints { id } } }', auth);
    }
  }

  function write(family: Family, auth: string | undefined): Promise<Reply> {
    switch (family) {
      case 'v2':
        return send('DELETE', `/v2/clusters/${clusterId}`, auth);
      case 'v1':
        return send('POST', '/v1/containerregistryauth', auth, { name: 'n', username: 'u', password: 'p' });
      case 'queue':
        return send('POST', `/v2/${endpointId}/run`, auth, { input: { n: 1 } });
      case 'graphql':
        return graphql(`mutation { deleteEndpoint(id: "${endpointId}") }`, auth);
    }
  }

  /** An action on one of alice's resources (`look`: the read that shows it is still there). */
  function foreign(family: Family, auth: string, look = false): Promise<Reply> {
    switch (family) {
      case 'v2':
        return send(look ? 'GET' : 'DELETE', `/v2/clusters/${clusterId}`, auth);
      case 'v1':
        return send(look ? 'GET' : 'DELETE', `/v1/containerregistryauth/${credentialId}`, auth);
      case 'queue':
        return look
          ? send('GET', `/v2/${endpointId}/health`, auth)
          : send('POST', `/v2/${endpointId}/purge-queue`, auth);
      case 'graphql':
        return look
          ? graphql('query { myself { endpoints { id } } }', auth)
          : graphql(`mutation { deleteEndpoint(id: "${endpointId}") }`, auth);
    }
  }

  const FAMILIES: Family[] = ['v2', 'v1', 'queue', 'graphql'];

  function expectStatus(reply: Reply, status: number, family: Family): void {
    expect({ family, status: reply.status }).toEqual({ family, status });
    if (family === 'graphql') {
      expect(reply.body.errors).toEqual([expect.objectContaining({ message: expect.any(String) })]);
    } else {
      expect(reply.contentType).toMatch(/^application\/problem\+json/);
      expect(reply.body).toEqual(expect.objectContaining({ status, detail: expect.any(String) }));
    }
  }

  beforeAll(async () => {
    db = await createTestDatabase('matrix');
    system = await startApps({
      databaseUrl: db.url,
      appEnv: {
        'pod-lifecycle': { RUNTIME_DRIVER: 'simulated' },
        'endpoint-autoscaler': { AUTOSCALER_ENABLED: 'false' },
      },
    });
    alice = await userWithKey(db.url, 'alice');
    bob = await userWithKey(db.url, 'bob');
    aliceRead = await createKey(db.url, 'alice', 'read');
    await createUser(db.url, 'mallory');
    revoked = await createKey(db.url, 'mallory');
    await revokeKey(db.url, revoked.id);

    const bearer = `Bearer ${alice.key}`;
    const template = await send('POST', '/v1/templates', bearer, {
      name: 'echo',
      imageName: 'gpucp/echo-worker',
      isServerless: true,
    });
    expect(template.status).toBe(201);
    const saved = await graphql(
      `mutation { saveEndpoint(input: { name: "e", templateId: "${String(template.body.id)}", gpuIds: "AMPERE_16" }) { id } }`,
      bearer,
    );
    endpointId = String((saved.body.data as { saveEndpoint: { id: string } }).saveEndpoint.id);
    aliceThisEndpoint = await createKey(db.url, 'alice', 'endpoints', [endpointId]);
    aliceOtherEndpoint = await createKey(db.url, 'alice', 'endpoints', ['another-endpoint']);
    const credential = await send('POST', '/v1/containerregistryauth', bearer, {
      name: 'registry',
      username: 'alice',
      password: 'pw',
    });
    credentialId = String(credential.body.id);
    const cluster = await send('POST', '/v2/clusters', bearer, {
      name: 'c',
      type: 'TRAINING',
      compute: { gpuTypeId: 'NVIDIA H100 80GB HBM3', gpuCountPerPod: 1, podCount: 2 },
    });
    expect(cluster.status).toBe(201);
    clusterId = String(cluster.body.id);
  });

  afterAll(async () => {
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  });

  describe.each(FAMILIES)('%s', (family) => {
    it('no key → 401', async () => {
      expectStatus(await read(family, undefined), 401, family);
    });

    it('a malformed Authorization header → 401', async () => {
      expectStatus(await read(family, 'Basic YWxpY2U6c2VjcmV0'), 401, family);
    });

    it('an unknown key → 401', async () => {
      expectStatus(await read(family, `Bearer cpk_${'x'.repeat(43)}`), 401, family);
    });

    it('a revoked key → 401', async () => {
      expectStatus(await read(family, `Bearer ${revoked.key}`), 401, family);
    });

    it('a read-only key may read but not write → 403', async () => {
      expect((await read(family, `Bearer ${aliceRead.key}`)).status).toBe(200);
      expectStatus(await write(family, `Bearer ${aliceRead.key}`), 403, family);
    });

    it("another user's resource → 403, left untouched", async () => {
      expectStatus(await foreign(family, `Bearer ${bob.key}`), 403, family);
      expect((await foreign(family, `Bearer ${alice.key}`, true)).status).toBe(200);
    });
  });

  it('the queue routes take the raw key too, and /graphql the api_key query parameter', async () => {
    expect((await send('GET', `/v2/${endpointId}/health`, alice.key)).status).toBe(200);
    expect((await graphql('query { myself { endpoints { id } } }', undefined, alice.key)).status).toBe(200);
    expectStatus(
      await graphql('query { myself { endpoints { id } } }', undefined, revoked.key),
      401,
      'graphql',
    );
  });

  it('a key restricted to named endpoints: their job routes only', async () => {
    expect((await send('GET', `/v2/${endpointId}/health`, aliceThisEndpoint.key)).status).toBe(200);
    expectStatus(await send('GET', `/v2/${endpointId}/health`, aliceOtherEndpoint.key), 403, 'queue');
    for (const family of ['v2', 'v1', 'graphql'] as const) {
      expectStatus(await read(family, `Bearer ${aliceThisEndpoint.key}`), 403, family);
    }
  });
});
