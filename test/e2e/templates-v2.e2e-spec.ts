import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import type { PodView, TemplateV2View, TemplateView } from '@app/contracts';
import { createKey, userWithKey } from '../support/accounts.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { errorCode, graphqlClient, type Graphql } from './graphql.e2e-helpers.js';
import { PlacementStandIn, client, expectProblem, type Call } from './pods.e2e-helpers.js';

/** The spec's saveTemplate document (management-api.md §3), verbatim but for the name. */
const saveDocument = (
  name: string,
) => `mutation { saveTemplate( input: { name: "${name}", imageName: "img:1", dockerArgs: "", containerDiskInGb: 10,
  volumeInGb: 0, ports: "", env: [{ key: "K", value: "V" }], isServerless: true, containerRegistryAuthId : "",
  startSsh: true, isPublic: false, readme: "" } ) { id name imageName dockerArgs containerDiskInGb volumeInGb
  volumeMountPath ports env { key value } isServerless } }`;

interface TemplateFields {
  id: string;
  name: string;
  imageName: string;
  ports: string;
  isServerless: boolean;
  containerRegistryAuthId?: string | null;
}

/** Templates through `/v2/templates`, `/v1/templates` and GraphQL: one set of templates and one set of rules. */
describe('templates on v2 and GraphQL', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let placement: PlacementStandIn;
  let alice: Call;
  let bob: Call;
  let aliceGql: Graphql;
  let bobGql: Graphql;
  let readGql: Graphql;

  beforeAll(async () => {
    db = await createTestDatabase('templates_v2');
    system = await startApps({
      // endpoint-autoscaler answers whether an endpoint uses a template about to be deleted.
      apps: ['gateway', 'pod-lifecycle', 'endpoint-autoscaler'],
      databaseUrl: db.url,
      appEnv: {
        'pod-lifecycle': { RUNTIME_DRIVER: 'simulated', SIM_PROVISION_MS: '100', SIM_START_MS: '100' },
      },
    });
    placement = await new PlacementStandIn(system.natsPrefix).start();
    const aliceKey = (await userWithKey(db.url, 'alice')).key;
    const bobKey = (await userWithKey(db.url, 'bob')).key;
    alice = client(system, aliceKey);
    bob = client(system, bobKey);
    aliceGql = graphqlClient(system, aliceKey);
    bobGql = graphqlClient(system, bobKey);
    readGql = graphqlClient(system, (await createKey(db.url, 'alice', 'read')).key);
  });

  afterAll(async () => {
    await placement?.stop();
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  });

  it('v2: create 201 in v2 names, wrapped list, get, PATCH 200, delete 204; v1 sees the same template', async () => {
    const { body: registry } = await alice<{ id: string }>('POST', '/v2/registries', {
      name: 'r',
      username: 'u',
      password: 'p',
    });
    const created = await alice<TemplateV2View>('POST', '/v2/templates', {
      name: 'trainer',
      image: 'ghcr.io/acme/trainer:2',
      args: 'python train.py',
      disk: 40,
      env: { EPOCHS: '3', HF_TOKEN: 'secret' },
      ports: ['8888/http'],
      registry: registry.id,
      public: false,
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'trainer',
      image: 'ghcr.io/acme/trainer:2',
      args: 'python train.py',
      disk: 40,
      env: { EPOCHS: '3', HF_TOKEN: '********' },
      ports: ['8888/http'],
      registry: registry.id,
      mounts: {},
      serverless: false,
      public: false,
      readme: '',
      createdAt: expect.any(String),
    });
    const id = created.body.id;
    expect((await alice('GET', '/v2/templates')).body).toEqual({ templates: [created.body] });
    expect((await alice('GET', `/v2/templates/${id}`)).body).toEqual(created.body);
    expect((await alice<TemplateView>('GET', `/v1/templates/${id}`)).body.imageName).toBe(
      'ghcr.io/acme/trainer:2',
    );

    const patched = await alice<TemplateV2View>('PATCH', `/v2/templates/${id}`, {
      name: 'trainer-2',
      image: 'ghcr.io/acme/trainer:3',
      registry: null,
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      id,
      name: 'trainer-2',
      image: 'ghcr.io/acme/trainer:3',
      registry: null,
    });
    expect(patched.body).toMatchObject({ args: 'python train.py', disk: 40, ports: ['8888/http'] });
    // The credential is free again: nothing references it.
    expect((await alice('DELETE', `/v2/registries/${registry.id}`)).status).toBe(204);

    const v1Patch = await alice<TemplateView>('PATCH', `/v1/templates/${id}`, {
      dockerArgs: 'python eval.py',
    });
    expect(v1Patch.status).toBe(200);
    expect(v1Patch.body).toMatchObject({ id, name: 'trainer-2', dockerArgs: 'python eval.py' });

    const deleted = await alice('DELETE', `/v2/templates/${id}`);
    expect({ status: deleted.status, text: deleted.text }).toEqual({ status: 204, text: '' });
    expectProblem(await alice('GET', `/v2/templates/${id}`), 404);
  });

  it('v2 errors: 403 for another user, 404, 409, 422; delete 400 while a pod uses the template', async () => {
    const { body: template } = await alice<TemplateV2View>('POST', '/v2/templates', {
      name: 'x',
      image: 'a:1',
    });
    await alice('POST', '/v2/templates', { name: 'taken', image: 'a:1' });
    for (const [method, body] of [['GET'], ['PATCH', { name: 'mine' }], ['DELETE']] as const) {
      expectProblem(await bob(method, `/v2/templates/${template.id}`, body), 403);
    }
    const nulls = await alice<TemplateV2View>('PATCH', `/v2/templates/${template.id}`, {
      name: null,
      image: null,
    });
    expect(nulls).toMatchObject({ status: 200, body: { name: 'x', image: 'a:1' } });
    expectProblem(await alice('GET', '/v2/templates/nope'), 404);
    expectProblem(await alice('PATCH', '/v2/templates/nope', { name: 'y' }), 404);
    expectProblem(await alice('PATCH', `/v2/templates/${template.id}`, { name: 'taken' }), 409);
    expectProblem(await alice('PATCH', `/v2/templates/${template.id}`, { registry: 'nope' }), 404);
    expectProblem(await alice('POST', '/v2/templates', { name: 'no-image' }), 422);
    expectProblem(await alice('POST', '/v2/templates', { name: 'v1-names', imageName: 'a:1' }), 422);
    expectProblem(await alice('POST', '/v2/templates', { name: 'pub', image: 'a:1', public: true }), 422);
    expectProblem(await alice('PATCH', `/v2/templates/${template.id}`, { disk: 0 }), 422);
    expectProblem(await alice('PATCH', `/v1/templates/${template.id}`, { ports: ['80'] }), 422);

    const pod = await alice<PodView>('POST', '/v1/pods', {
      name: 'user',
      templateId: template.id,
      gpuTypeId: 'A',
    });
    expect(pod.status).toBe(201);
    expectProblem(await alice('DELETE', `/v2/templates/${template.id}`), 400, /is used by pod/);
    expect((await alice('DELETE', `/v1/pods/${pod.body.id}`)).status).toBe(204);
    expect((await alice('DELETE', `/v2/templates/${template.id}`)).status).toBe(204);
  });

  it('saveTemplate as the SDK writes it (GraphQL) → read (v2) → deleteTemplate by name (GraphQL)', async () => {
    const saved = await aliceGql<{ saveTemplate: Record<string, unknown> }>(saveDocument('tpl'));
    expect(saved.body.errors).toBeUndefined();
    expect(saved.body.data!.saveTemplate).toEqual({
      id: expect.any(String),
      name: 'tpl',
      imageName: 'img:1',
      dockerArgs: '',
      containerDiskInGb: 10,
      volumeInGb: 0,
      volumeMountPath: null,
      ports: '',
      env: [{ key: 'K', value: 'V' }],
      isServerless: true,
    });
    const id = saved.body.data!.saveTemplate.id as string;
    expect((await alice('GET', `/v2/templates/${id}`)).body).toMatchObject({
      name: 'tpl',
      image: 'img:1',
      env: { K: 'V' },
      registry: null,
      serverless: true,
    });
    expect((await aliceGql(saveDocument('tpl'))).body.errors?.[0]?.extensions?.code).toBe('CONFLICT');
    expect((await bobGql('mutation { deleteTemplate(templateName: "tpl") }')).body.errors?.[0]).toMatchObject(
      {
        extensions: { code: 'NOT_FOUND' },
      },
    );
    expect((await readGql('mutation { deleteTemplate(templateName: "tpl") }')).status).toBe(403);
    const deleted = await aliceGql('mutation { deleteTemplate(templateName: "tpl") }');
    expect(deleted.body).toEqual({ data: { deleteTemplate: null } });
    expectProblem(await alice('GET', `/v2/templates/${id}`), 404);
  });

  it('saveTemplate with variables and with an id updates; create via GraphQL, read via v2, delete via v1', async () => {
    const { body: registry } = await alice<{ id: string }>('POST', '/v2/registries', {
      name: 'ghcr',
      username: 'u',
      password: 'p',
    });
    const document =
      'mutation SaveTemplate($input: SaveTemplateInput!) { saveTemplate(input: $input) { id name imageName ports isServerless containerRegistryAuthId } }';
    const created = await aliceGql<{ saveTemplate: TemplateFields }>(document, {
      input: {
        name: 'vars',
        imageName: 'img:2',
        ports: '8888/http,22/tcp',
        containerRegistryAuthId: registry.id,
      },
    });
    const template = created.body.data!.saveTemplate;
    expect(template).toMatchObject({
      name: 'vars',
      ports: '8888/http,22/tcp',
      containerRegistryAuthId: registry.id,
    });
    expect((await alice('GET', `/v2/templates/${template.id}`)).body).toMatchObject({
      ports: ['8888/http', '22/tcp'],
      registry: registry.id,
    });

    const updated = await aliceGql<{ saveTemplate: TemplateFields }>(document, {
      input: { id: template.id, name: 'vars', imageName: 'img:3', containerRegistryAuthId: '' },
    });
    expect(updated.body.data!.saveTemplate).toMatchObject({
      id: template.id,
      imageName: 'img:3',
      ports: '8888/http,22/tcp',
      containerRegistryAuthId: null,
    });
    const badPorts = await aliceGql(document, { input: { name: 'bad', imageName: 'i', ports: '80' } });
    expect(errorCode(badPorts)).toBe('BAD_USER_INPUT');
    const bobUpdate = await bobGql(document, { input: { id: template.id, name: 'mine', imageName: 'i' } });
    expect(bobUpdate.status).toBe(403);

    expect((await alice('DELETE', `/v1/templates/${template.id}`)).status).toBe(204);
    const left = await alice<{ templates: TemplateV2View[] }>('GET', '/v2/templates');
    expect(left.body.templates.map((t) => t.id)).not.toContain(template.id);
  });
  it('carry a pod volume: saveTemplate volumeInGb, v2 mounts.persistent; a pod from one gets it', async () => {
    const saved = await aliceGql<{
      saveTemplate: { id: string; volumeInGb: number; volumeMountPath: string };
    }>(
      'mutation { saveTemplate(input: { name: "vol", imageName: "img:1", volumeInGb: 5 }) { id volumeInGb volumeMountPath } }',
    );
    expect(saved.body.data!.saveTemplate).toMatchObject({ volumeInGb: 5, volumeMountPath: '/workspace' });
    const { id } = saved.body.data!.saveTemplate;
    const read = await alice<TemplateV2View>('GET', `/v2/templates/${id}`);
    expect(read.body.mounts).toEqual({ persistent: { size: 5, path: '/workspace' } });
    const v2 = await alice<TemplateV2View>('POST', '/v2/templates', {
      ...{ name: 'vol-v2', image: 'img:1', mounts: { persistent: { size: 20, path: '/data' } } },
    });
    expect(v2.body.mounts).toEqual({ persistent: { size: 20, path: '/data' } });
    const v1 = await alice<TemplateView>('GET', `/v1/templates/${v2.body.id}`);
    expect(v1.body).toMatchObject({ volumeInGb: 20, volumeMountPath: '/data' });
    const network = { name: 'n', image: 'i', mounts: { network: [{ volumeId: 'v', path: '/n' }] } };
    expectProblem(await alice('POST', '/v2/templates', network), 422);
    const pod = await alice<PodView>('POST', '/v1/pods', {
      name: 'p',
      templateId: id,
      gpuTypeId: 'NVIDIA A40',
    });
    expect(pod.body).toMatchObject({ volumeMountPath: '/workspace' });
    expect((await alice('DELETE', `/v1/pods/${pod.body.id}`)).status).toBe(204);
  });

  it('PATCH with the env as read (secrets masked) keeps the secrets; a new value replaces one', async () => {
    const created = await alice<TemplateV2View>('POST', '/v2/templates', {
      name: 'masked-roundtrip',
      image: 'img:1',
      env: { HF_TOKEN: 'hf_real', API_KEY: 'k_real', MODEL: 'a' },
    });
    expect(created.body.env).toEqual({ HF_TOKEN: '********', API_KEY: '********', MODEL: 'a' });
    const patched = await alice<TemplateV2View>('PATCH', `/v2/templates/${created.body.id}`, {
      env: { ...created.body.env, API_KEY: 'k_new', MODEL: 'b' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.env).toEqual({ HF_TOKEN: '********', API_KEY: '********', MODEL: 'b' });
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ env: Record<string, string> }>(
        'SELECT env FROM pod_lifecycle.templates WHERE id = $1',
        [created.body.id],
      );
      expect(rows[0].env).toEqual({ HF_TOKEN: 'hf_real', API_KEY: 'k_new', MODEL: 'b' });
    } finally {
      await client.end();
    }
  });
});
