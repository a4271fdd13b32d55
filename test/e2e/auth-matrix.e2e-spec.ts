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

/** Secrets alice gives the system: none may show where the key reading them may not see them. */
const REGISTRY_PASSWORD = 'registry-password-never-shown';
const TEMPLATE_SECRET = 'template-token-never-shown';
const ENDPOINT_SECRET = 'endpoint-token-for-managers-only';

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
  let templateId: string;

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
      env: { API_TOKEN: TEMPLATE_SECRET },
    });
    expect(template.status).toBe(201);
    templateId = String(template.body.id);
    const saved = await graphql(
      `mutation { saveEndpoint(input: { name: "e", templateId: "${templateId}", gpuIds: "AMPERE_16", ` +
        `env: [{ key: "HF_TOKEN", value: "${ENDPOINT_SECRET}" }, { key: "MODE", value: "fast" }] }) { id } }`,
      bearer,
    );
    endpointId = String((saved.body.data as { saveEndpoint: { id: string } }).saveEndpoint.id);
    aliceThisEndpoint = await createKey(db.url, 'alice', 'endpoints', [endpointId]);
    aliceOtherEndpoint = await createKey(db.url, 'alice', 'endpoints', ['another-endpoint']);
    const credential = await send('POST', '/v1/containerregistryauth', bearer, {
      name: 'registry',
      username: 'alice',
      password: REGISTRY_PASSWORD,
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

  it("a read-only key sees neither the workers' key nor secret env values; a key that may manage does", async () => {
    type Env = { key: string; value: string }[];
    type Listed = { data: { myself: { endpoints: { id: string; aiKey: string | null; env: Env }[] } } };
    /** The one endpoint, its env in name order (jsonb keeps no order). */
    const listed = async (key: TestKey) => {
      const reply = await graphql(
        'query { myself { endpoints { id aiKey env { key value } } } }',
        `Bearer ${key.key}`,
      );
      expect(reply.status).toBe(200);
      const [endpoint, ...others] = (reply.body as unknown as Listed).data.myself.endpoints;
      expect(others).toEqual([]);
      return { ...endpoint, env: [...endpoint.env].sort((a, b) => a.key.localeCompare(b.key)) };
    };
    const managed = await listed(alice);
    expect(managed).toEqual({
      id: endpointId,
      aiKey: expect.stringMatching(/^\S{20,}$/),
      env: [
        { key: 'HF_TOKEN', value: ENDPOINT_SECRET },
        { key: 'MODE', value: 'fast' },
      ],
    });
    const read = await listed(aliceRead);
    expect(read).toEqual({
      id: endpointId,
      aiKey: null,
      env: [
        { key: 'HF_TOKEN', value: '********' },
        { key: 'MODE', value: 'fast' },
      ],
    });
  });

  it('no read route shows a registry password, a sealed blob or a secret env value; GraphQL only to managers', async () => {
    const every =
      'query { myself { id endpoints { id name gpuIds templateId aiKey userId env { key value } ' +
      'networkVolume { id dataCenterId } pods { id desiredStatus status } } } }';
    const full = await graphql(every, `Bearer ${alice.key}`);
    const workersKey = String(
      (full.body.data as { myself: { endpoints: { aiKey: string }[] } }).myself.endpoints[0].aiKey,
    );
    const routes = [
      '/v1/containerregistryauth',
      `/v1/containerregistryauth/${credentialId}`,
      '/v1/templates',
      `/v1/templates/${templateId}`,
      '/v1/pods',
      '/v1/networkvolumes',
      '/v1/user/ssh-keys',
      '/v2/clusters',
      `/v2/clusters/${clusterId}`,
      `/v2/clusters/${clusterId}/pods`,
      `/v2/${endpointId}/health`,
    ];
    for (const key of [alice, aliceRead]) {
      for (const route of routes) {
        const reply = await send('GET', route, `Bearer ${key.key}`);
        const text = JSON.stringify(reply.body);
        expect({ route, status: reply.status }).toEqual({ route, status: 200 });
        for (const secret of [REGISTRY_PASSWORD, TEMPLATE_SECRET, ENDPOINT_SECRET, workersKey]) {
          expect({ route, leaks: text.includes(secret) }).toEqual({ route, leaks: false });
        }
        expect({ route, sealed: /sealed/i.test(text) }).toEqual({ route, sealed: false });
      }
    }
    const read = JSON.stringify((await graphql(every, `Bearer ${aliceRead.key}`)).body);
    for (const text of [JSON.stringify(full.body), read]) {
      expect(text).not.toMatch(/sealed/i);
      expect(text).not.toContain(REGISTRY_PASSWORD);
      expect(text).not.toContain(TEMPLATE_SECRET);
    }
    expect(read).not.toContain(ENDPOINT_SECRET);
    expect(read).not.toContain(workersKey);

    // REST v1 shows endpoints as GraphQL does, embedded template and worker pods included.
    const v1 = await send(
      'GET',
      '/v1/endpoints?includeTemplate=true&includeWorkers=true',
      `Bearer ${aliceRead.key}`,
    );
    expect(v1.status).toBe(200);
    const v1Text = JSON.stringify(v1.body);
    for (const secret of [ENDPOINT_SECRET, workersKey, TEMPLATE_SECRET, REGISTRY_PASSWORD]) {
      expect(v1Text).not.toContain(secret);
    }
    expect(v1Text).not.toMatch(/sealed/i);
  });

  it("the account's API keys: only a full key creates or revokes, and only its own user's keys", async () => {
    const body = { name: 'matrix', scope: 'read' };
    for (const auth of [undefined, 'Basic YWxpY2U6c2VjcmV0', `Bearer ${revoked.key}`]) {
      expectStatus(await send('POST', '/v2/account/api-keys', auth, body), 401, 'v2');
      expectStatus(await send('DELETE', `/v2/account/api-keys/${aliceRead.id}`, auth), 401, 'v2');
    }
    for (const limited of [aliceRead, aliceThisEndpoint]) {
      expectStatus(await send('POST', '/v2/account/api-keys', `Bearer ${limited.key}`, body), 403, 'v2');
      expectStatus(
        await send('DELETE', `/v2/account/api-keys/${aliceRead.id}`, `Bearer ${limited.key}`),
        403,
        'v2',
      );
    }
    // Another user's key: 404, not 403 (the answer does not tell that it exists), and it still works.
    expectStatus(
      await send('DELETE', `/v2/account/api-keys/${aliceRead.id}`, `Bearer ${bob.key}`),
      404,
      'v2',
    );
    expect((await send('GET', '/v2/clusters', `Bearer ${aliceRead.key}`)).status).toBe(200);
  });

  it('a key restricted to named endpoints: their job routes only', async () => {
    expect((await send('GET', `/v2/${endpointId}/health`, aliceThisEndpoint.key)).status).toBe(200);
    expectStatus(await send('GET', `/v2/${endpointId}/health`, aliceOtherEndpoint.key), 403, 'queue');
    for (const family of ['v2', 'v1', 'graphql'] as const) {
      expectStatus(await read(family, `Bearer ${aliceThisEndpoint.key}`), 403, family);
    }
  });
});
