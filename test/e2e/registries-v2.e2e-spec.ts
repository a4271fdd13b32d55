import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createKey, userWithKey } from '../support/accounts.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { errorCode, graphqlClient, type Graphql } from './graphql.e2e-helpers.js';
import { client, expectProblem, type Call } from './pods.e2e-helpers.js';

interface Credential {
  id: string;
  name: string;
}

/**
 * Registry credentials through `/v2/registries`, `/v1/containerregistryauth` and the Python SDK's GraphQL
 * documents: one set of credentials, whichever surface writes or reads them.
 */
describe('registry credentials on v2 and GraphQL', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let alice: Call;
  let bob: Call;
  let aliceGql: Graphql;
  let bobGql: Graphql;
  let readGql: Graphql;

  beforeAll(async () => {
    db = await createTestDatabase('registries_v2');
    system = await startApps({
      apps: ['gateway', 'pod-lifecycle', 'endpoint-autoscaler'],
      databaseUrl: db.url,
    });
    const aliceKey = (await userWithKey(db.url, 'alice')).key;
    const bobKey = (await userWithKey(db.url, 'bob')).key;
    alice = client(system, aliceKey);
    bob = client(system, bobKey);
    aliceGql = graphqlClient(system, aliceKey);
    bobGql = graphqlClient(system, bobKey);
    readGql = graphqlClient(system, (await createKey(db.url, 'alice', 'read')).key);
  });

  afterAll(async () => {
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  });

  it('v2: create 201 {id, name}, wrapped list, get, 403 for another user, 404, 422, delete 204', async () => {
    const created = await alice<Credential>('POST', '/v2/registries', {
      name: 'ghcr',
      username: 'bot',
      password: 'pw-1',
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.any(String), name: 'ghcr' });
    const id = created.body.id;
    const list = await alice('GET', '/v2/registries');
    expect(list).toMatchObject({ status: 200, body: { registries: [{ id, name: 'ghcr' }] } });
    expect(list.text).not.toContain('pw-1');
    expect((await alice('GET', `/v2/registries/${id}`)).body).toEqual({ id, name: 'ghcr' });
    expect((await alice('GET', `/v1/containerregistryauth/${id}`)).body).toEqual({ id, name: 'ghcr' });
    expectProblem(await bob('GET', `/v2/registries/${id}`), 403);
    expectProblem(await bob('DELETE', `/v2/registries/${id}`), 403);
    expect((await bob('GET', '/v2/registries')).body).toEqual({ registries: [] });
    expectProblem(await alice('GET', '/v2/registries/nope'), 404);
    expectProblem(await alice('POST', '/v2/registries', { name: 'x', username: 'u' }), 422);
    expectProblem(await alice('POST', '/v2/registries', { name: 'ghcr', username: 'u', password: 'p' }), 409);
    expect((await alice('DELETE', `/v2/registries/${id}`)).status).toBe(204);
    expectProblem(await alice('GET', `/v1/containerregistryauth/${id}`), 404);
  });

  it('v2 delete answers 400 while a template uses the credential', async () => {
    const { body: credential } = await alice<Credential>('POST', '/v2/registries', {
      name: 'used',
      username: 'u',
      password: 'p',
    });
    const template = await alice<{ id: string }>('POST', '/v1/templates', {
      name: 'private',
      imageName: 'ghcr.io/acme/x:1',
      containerRegistryAuthId: credential.id,
    });
    expect(template.status).toBe(201);
    expectProblem(await alice('DELETE', `/v2/registries/${credential.id}`), 400, /template/);
    expect((await alice('DELETE', `/v1/templates/${template.body.id}`)).status).toBe(204);
    expect((await alice('DELETE', `/v2/registries/${credential.id}`)).status).toBe(204);
  });

  it('the SDK documents verbatim: save (GraphQL) → read (v2) → update (GraphQL) → list (GraphQL) → delete (v1)', async () => {
    const saved = await aliceGql<{ saveRegistryAuth: Credential }>(
      'mutation SaveRegistryAuth { saveRegistryAuth(input: {name: "r", username: "u", password: "pw"}) { id name } }',
    );
    expect(saved.body.errors).toBeUndefined();
    const id = saved.body.data!.saveRegistryAuth.id;
    expect(saved.body.data).toEqual({ saveRegistryAuth: { id, name: 'r' } });
    expect((await alice('GET', `/v2/registries/${id}`)).body).toEqual({ id, name: 'r' });

    const updated = await aliceGql<{ updateRegistryAuth: Credential }>(
      `mutation UpdateRegistryAuth { updateRegistryAuth(input: {id: "${id}", username: "u2", password: "pw2"}) { id name } }`,
    );
    expect(updated.body).toEqual({ data: { updateRegistryAuth: { id, name: 'r' } } });
    const listed = await aliceGql<{ myself: { containerRegistryCreds: Credential[] } }>(
      'query { myself { containerRegistryCreds { id name } } }',
    );
    expect(listed.body.errors).toBeUndefined();
    expect(listed.body.data!.myself.containerRegistryCreds).toEqual([{ id, name: 'r' }]);

    expect(
      (await bobGql(`mutation DeleteRegistryAuth { deleteRegistryAuth(registryAuthId: "${id}") }`)).status,
    ).toBe(403);
    expect((await alice('DELETE', `/v1/containerregistryauth/${id}`)).status).toBe(204);
    const gone = await aliceGql(
      `mutation DeleteRegistryAuth { deleteRegistryAuth(registryAuthId: "${id}") }`,
    );
    expect(errorCode(gone)).toBe('NOT_FOUND');
  });

  it('the same documents with variables; delete via GraphQL; a read key may list but not mutate', async () => {
    const saved = await aliceGql<{ saveRegistryAuth: Credential }>(
      'mutation SaveRegistryAuth($input: SaveRegistryAuthInput!) { saveRegistryAuth(input: $input) { id name } }',
      { input: { name: 'vars', username: 'u', password: 'pw' } },
    );
    const id = saved.body.data!.saveRegistryAuth.id;
    const updated = await aliceGql<{ updateRegistryAuth: Credential }>(
      'mutation UpdateRegistryAuth($input: UpdateRegistryAuthInput!) { updateRegistryAuth(input: $input) { id name } }',
      { input: { id, username: 'u3', password: 'pw3' } },
    );
    expect(updated.body.data).toEqual({ updateRegistryAuth: { id, name: 'vars' } });
    const bobUpdate = await bobGql(
      `mutation { updateRegistryAuth(input: {id: "${id}", username: "x", password: "y"}) { id } }`,
    );
    expect(bobUpdate.status).toBe(403);
    const invalid = await aliceGql(
      'mutation { saveRegistryAuth(input: {name: "", username: "u", password: "p"}) { id } }',
    );
    expect(invalid.body.errors?.length).toBeGreaterThan(0);

    const readList = await readGql<{ myself: { containerRegistryCreds: Credential[] } }>(
      'query { myself { containerRegistryCreds { id name } } }',
    );
    expect(readList.body.data!.myself.containerRegistryCreds).toEqual([{ id, name: 'vars' }]);
    expect((await readGql(`mutation { deleteRegistryAuth(registryAuthId: "${id}") }`)).status).toBe(403);

    const deleted = await aliceGql(
      'mutation DeleteRegistryAuth($id: String!) { deleteRegistryAuth(registryAuthId: $id) }',
      { id },
    );
    expect(deleted.body).toEqual({ data: { deleteRegistryAuth: null } });
    expect((await alice('GET', '/v2/registries')).body).toEqual({ registries: [] });
  });

  it('RunPod routes not offered here answer 501 problem+json naming the feature and why, never `no route`', async () => {
    const credential = await alice<Credential>('POST', '/v2/registries', {
      name: 'd',
      username: 'u',
      password: 'p',
    });
    // The MCP server's tools list-delegations, create-delegation, revoke-delegation, list-endpoint-releases,
    // list-endpoint-builds and get-endpoint-build (with its logs).
    const routes: [string, string, string][] = [
      ['GET', '/v2/registries/delegations', 'ECR delegations'],
      ['POST', '/v2/registries/delegations', 'ECR delegations'],
      ['DELETE', '/v2/registries/delegations/d1', 'ECR delegations'],
      ['GET', '/v2/serverless/e1/releases', 'endpoint releases'],
      ['GET', '/v2/serverless/e1/builds', 'GitHub builds'],
      ['GET', '/v2/serverless/e1/builds/b1', 'GitHub builds'],
      ['GET', '/v2/serverless/e1/builds/b1/logs', 'GitHub builds'],
    ];
    for (const [method, path, feature] of routes) {
      const reply = await alice(method, path, method === 'POST' ? { name: 'x' } : undefined);
      expectProblem(reply, 501, new RegExp(`^${feature} are not offered by a self-hosted deployment: .+`));
      expect(reply.body).toMatchObject({
        type: 'urn:gpucp:problem:not-offered-self-hosted',
        title: 'Not offered by a self-hosted deployment',
      });
      // Authenticated like every route: no key, 401 before anything else.
      expect((await fetch(`${system.url('gateway')}${path}`, { method })).status).toBe(401);
    }
    // `delegations` is not read as a registry id, and the registry routes keep answering.
    expect((await alice('GET', `/v2/registries/${credential.body.id}`)).body).toEqual(credential.body);
  });
});
