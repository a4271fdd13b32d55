import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { NetworkVolumeView, TemplateView } from '@app/contracts';
import { createKey, createUser, userWithKey } from '../support/accounts.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';

interface GraphqlAnswer<T = Record<string, unknown>> {
  status: number;
  body: {
    data?: T | null;
    errors?: { message: string; extensions?: { code?: string; [key: string]: unknown } }[];
  };
  text: string;
}

interface EndpointFields {
  id: string;
  name: string;
  templateId: string;
  gpuIds: string;
  networkVolumeId: string | null;
  locations: string | null;
  idleTimeout: number;
  scalerType: string;
  scalerValue: number;
  workersMin: number;
  workersMax: number;
  allowedCudaVersions: string | null;
  gpuCount: number;
  flashBootType: string;
}

/** The Python SDK's create, as sent (compatibility.md §3), with the template id filled in. */
const createDocument = (templateId: string, name = 'e') =>
  `mutation { saveEndpoint( input: { flashBootType: FLASHBOOT, name: "${name}", templateId: "${templateId}", gpuIds: "AMPERE_16",
      networkVolumeId: "", locations: "", idleTimeout: 5, scalerType: "QUEUE_DELAY", scalerValue: 4,
      workersMin: 0, workersMax: 2, gpuCount: 1 } ) { id name templateId gpuIds networkVolumeId locations
      idleTimeout scalerType scalerValue workersMin workersMax allowedCudaVersions gpuCount flashBootType } }`;

/** The same mutation with `id` set (a modify: gpuIds, name and templateId still supplied). */
const modifyDocument = (id: string, templateId: string, fields: string) =>
  `mutation { saveEndpoint( input: { id: "${id}", name: "e2", templateId: "${templateId}", gpuIds: "AMPERE_24,ADA_24", ${fields} } ) { id name gpuIds workersMin workersMax idleTimeout scalerType scalerValue flashBootType locations } }`;

/** The SDK's list: the interface's fields plus the extra ones clients select. */
const LIST_DOCUMENT = `query { myself { endpoints { id name templateId gpuIds networkVolumeId locations idleTimeout
  scalerType scalerValue workersMin workersMax flashBootType allowedCudaVersions aiKey type userId version
  workersStandby gpuCount env { key value } createdAt networkVolume { id dataCenterId } pods { desiredStatus } }
  serverlessDiscount { discountFactor type expirationDate } } }`;

/** GraphQL endpoint management: the exact documents real clients send, both ways of passing the key, errors. */
describe('endpoints over GraphQL', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let aliceKey: string;
  let aliceId: string;
  let bobKey: string;
  let readKey: string;
  let template: TemplateView;

  /** POST /graphql with `{"query": ...}`; the key as `?api_key=` (default) or `Authorization: Bearer`. */
  async function graphql<T = Record<string, unknown>>(
    query: string,
    key: string | null,
    via: 'query' | 'bearer' = 'query',
  ): Promise<GraphqlAnswer<T>> {
    const url = new URL('/graphql', system.url('gateway'));
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (key && via === 'query') url.searchParams.set('api_key', key);
    if (key && via === 'bearer') headers.authorization = `Bearer ${key}`;
    const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ query }) });
    const text = await response.text();
    return { status: response.status, body: JSON.parse(text) as GraphqlAnswer<T>['body'], text };
  }

  async function rest<T>(
    method: string,
    path: string,
    key: string,
    body?: unknown,
  ): Promise<{ status: number; body: T }> {
    const response = await fetch(`${system.url('gateway')}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: response.status, body: (await response.json()) as T };
  }

  async function createEndpoint(name = 'e'): Promise<EndpointFields> {
    const answer = await graphql<{ saveEndpoint: EndpointFields }>(
      createDocument(template.id, name),
      aliceKey,
    );
    expect(answer.body.errors).toBeUndefined();
    return answer.body.data!.saveEndpoint;
  }

  beforeAll(async () => {
    const apps = ['gateway', 'cluster-scheduler', 'pod-lifecycle', 'endpoint-autoscaler'] as const;
    db = await createTestDatabase('endpoints', { apps });
    system = await startApps({
      apps,
      databaseUrl: db.url,
      appEnv: {
        'pod-lifecycle': { RUNTIME_DRIVER: 'simulated' },
        'endpoint-autoscaler': { AUTOSCALER_ENABLED: 'false' },
      },
    });
    const alice = await userWithKey(db.url, 'alice');
    aliceKey = alice.key;
    aliceId = alice.userId;
    bobKey = (await userWithKey(db.url, 'bob')).key;
    readKey = (await createKey(db.url, 'alice', 'read')).key;
    await createUser(db.url, 'carol');
    template = (
      await rest<TemplateView>('POST', '/v1/templates', aliceKey, {
        name: 'echo-worker',
        imageName: 'gpucp/echo-worker:latest',
        isServerless: true,
      })
    ).body;
  });

  afterAll(async () => {
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  });

  it('creates with the Python SDK document as sent (?api_key=), defaults and echoes applied', async () => {
    const answer = await graphql<{ saveEndpoint: EndpointFields }>(createDocument(template.id), aliceKey);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      data: {
        saveEndpoint: {
          id: expect.stringMatching(/^[a-z0-9]{14}$/),
          name: 'e',
          templateId: template.id,
          gpuIds: 'AMPERE_16',
          networkVolumeId: null,
          locations: null,
          idleTimeout: 5,
          scalerType: 'QUEUE_DELAY',
          scalerValue: 4,
          workersMin: 0,
          workersMax: 2,
          allowedCudaVersions: null,
          gpuCount: 1,
          flashBootType: 'FLASHBOOT',
        },
      },
    });
  });

  it('creates with Authorization: Bearer too, and applies the public defaults to omitted fields', async () => {
    const answer = await graphql<{ saveEndpoint: Record<string, unknown> }>(
      `mutation { saveEndpoint(input: { name: "minimal", templateId: "${template.id}", gpuIds: "ADA_80_PRO" }) {
        type idleTimeout scalerType scalerValue gpuCount workersMin flashBootType } }`,
      aliceKey,
      'bearer',
    );
    expect(answer.status).toBe(200);
    expect(answer.body.data!.saveEndpoint).toEqual({
      type: 'QB',
      idleTimeout: 5,
      scalerType: 'QUEUE_DELAY',
      scalerValue: 4,
      gpuCount: 1,
      workersMin: 0,
      flashBootType: 'OFF',
    });
  });

  it('modifies with the same mutation and an id (both key transports), keeping omitted fields', async () => {
    const created = await createEndpoint('to-modify');
    const first = await graphql<{ saveEndpoint: Record<string, unknown> }>(
      modifyDocument(
        created.id,
        template.id,
        'workersMax: 3, scalerType: "REQUEST_COUNT", scalerValue: 2, locations: "US,RO"',
      ),
      aliceKey,
      'bearer',
    );
    expect(first.body).toEqual({
      data: {
        saveEndpoint: {
          id: created.id,
          name: 'e2',
          gpuIds: 'AMPERE_24,ADA_24',
          workersMin: 0,
          workersMax: 3,
          idleTimeout: 5,
          scalerType: 'REQUEST_COUNT',
          scalerValue: 2,
          flashBootType: 'FLASHBOOT',
          locations: 'US,RO',
        },
      },
    });
    const second = await graphql<{ saveEndpoint: Record<string, unknown> }>(
      modifyDocument(created.id, template.id, 'idleTimeout: 9, flashBootType: OFF, locations: ""'),
      aliceKey,
    );
    expect(second.body.data!.saveEndpoint).toMatchObject({
      workersMax: 3,
      idleTimeout: 9,
      scalerType: 'REQUEST_COUNT',
      flashBootType: 'OFF',
      locations: null,
    });
  });

  it('updateEndpointTemplate, inline and as the command-line client sends it ($input variables, as saveEndpoint)', async () => {
    const created = await createEndpoint('switch');
    const other = (
      await rest<TemplateView>('POST', '/v1/templates', aliceKey, {
        name: 'other-worker',
        imageName: 'gpucp/echo-worker:latest',
        isServerless: true,
      })
    ).body;
    const inline = await graphql<{ updateEndpointTemplate: { id: string; templateId: string } }>(
      `mutation { updateEndpointTemplate(input: {templateId: "${other.id}", endpointId: "${created.id}"}) { id templateId } }`,
      aliceKey,
    );
    expect(inline.body).toEqual({
      data: { updateEndpointTemplate: { id: created.id, templateId: other.id } },
    });

    const withVariables = async (query: string, variables: Record<string, unknown>) => {
      const response = await fetch(new URL('/graphql', system.url('gateway')), {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${aliceKey}` },
        body: JSON.stringify({ query, variables }),
      });
      return (await response.json()) as {
        data?: Record<string, { id: string; templateId: string }>;
        errors?: unknown[];
      };
    };
    const back = await withVariables(
      'mutation UpdateEndpointTemplate($input: UpdateEndpointTemplateInput!) { updateEndpointTemplate(input: $input) { id templateId } }',
      { input: { templateId: template.id, endpointId: created.id } },
    );
    expect(back).toEqual({ data: { updateEndpointTemplate: { id: created.id, templateId: template.id } } });
    const saved = await withVariables(
      'mutation SaveEndpoint($input: EndpointInput!) { saveEndpoint(input: $input) { id templateId } }',
      { input: { id: created.id, name: 'switch', templateId: other.id, gpuIds: 'AMPERE_16' } },
    );
    expect(saved.data?.saveEndpoint).toEqual({ id: created.id, templateId: other.id });

    // The rules of a save: the template must be the caller's and serverless.
    const podTemplate = (
      await rest<TemplateView>('POST', '/v1/templates', aliceKey, { name: 'for-pods', imageName: 'alpine:3' })
    ).body;
    const refused = await graphql(
      `mutation { updateEndpointTemplate(input: {templateId: "${podTemplate.id}", endpointId: "${created.id}"}) { id } }`,
      aliceKey,
    );
    expect(refused.text).toContain('is not a serverless template');
    const bobs = await graphql(
      `mutation { updateEndpointTemplate(input: {templateId: "${template.id}", endpointId: "${created.id}"}) { id } }`,
      bobKey,
    );
    expect(bobs.body.errors).toBeDefined();
    expect(bobs.body.data ?? null).toBeNull();
  });

  it('lists the caller’s endpoints with every field clients select (both key transports)', async () => {
    const created = await createEndpoint('listed');
    for (const via of ['query', 'bearer'] as const) {
      const answer = await graphql<{
        myself: { endpoints: Record<string, unknown>[]; serverlessDiscount: unknown };
      }>(LIST_DOCUMENT, aliceKey, via);
      expect(answer.status).toBe(200);
      expect(answer.body.errors).toBeUndefined();
      expect(answer.body.data!.myself.serverlessDiscount).toBeNull();
      const listed = answer.body.data!.myself.endpoints.find((e) => e.id === created.id);
      expect(listed).toEqual({
        ...created,
        aiKey: expect.stringMatching(/^cpk_/),
        type: 'QB',
        userId: aliceId,
        version: 1,
        workersStandby: 0,
        env: [],
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        networkVolume: null,
        pods: [],
      });
    }
    const bobs = await graphql<{ myself: { endpoints: { id: string }[] } }>(LIST_DOCUMENT, bobKey);
    expect(bobs.body.data!.myself.endpoints).toEqual([]);
  });

  it('gives each endpoint a worker key that may not manage endpoints (403)', async () => {
    const created = await createEndpoint('worker-key');
    const list = await graphql<{ myself: { endpoints: { id: string; aiKey: string }[] } }>(
      'query { myself { endpoints { id aiKey } } }',
      aliceKey,
    );
    const aiKey = list.body.data!.myself.endpoints.find((e) => e.id === created.id)!.aiKey;
    const answer = await graphql('query { myself { endpoints { id } } }', aiKey);
    expect(answer.status).toBe(403);
    expect(answer.body.errors![0].extensions!.code).toBe('FORBIDDEN');
  });

  it('deletes only at workersMin = workersMax = 0, answering {"data":{"deleteEndpoint":null}}', async () => {
    const created = await createEndpoint('to-delete');
    const refused = await graphql(`mutation { deleteEndpoint(id: "${created.id}") }`, aliceKey);
    expect(refused.status).toBe(200);
    expect(refused.body.errors![0].message).toMatch(/workersMin 0 and workersMax 2: set both to 0/);
    expect(refused.body.errors![0].extensions!.code).toBe('INVALID_STATE');
    expect(refused.text).not.toMatch(/stacktrace|at .*\.js:\d+/);

    await graphql(modifyDocument(created.id, template.id, 'workersMin: 0, workersMax: 0'), aliceKey);
    const deleted = await graphql(`mutation { deleteEndpoint(id: "${created.id}") }`, aliceKey, 'bearer');
    expect(deleted.status).toBe(200);
    expect(JSON.parse(deleted.text)).toEqual({ data: { deleteEndpoint: null } });

    const list = await graphql<{ myself: { endpoints: { id: string }[] } }>(
      'query { myself { endpoints { id } } }',
      aliceKey,
    );
    expect(list.body.data!.myself.endpoints.map((e) => e.id)).not.toContain(created.id);
    const again = await graphql(`mutation { deleteEndpoint(id: "${created.id}") }`, aliceKey);
    expect(again.body.errors![0].extensions!.code).toBe('NOT_FOUND');
  });

  it('401 (HTTP 401, JSON errors) without a key or with a bad one', async () => {
    for (const key of [null, 'cpk_not-a-real-key', 'garbage']) {
      const answer = await graphql('query { myself { endpoints { id } } }', key);
      expect(answer.status).toBe(401);
      expect(answer.body.errors![0]).toEqual({
        message: key ? 'invalid API key' : expect.stringMatching(/missing API key/),
        locations: expect.any(Array),
        path: ['myself'],
        extensions: { code: 'UNAUTHENTICATED' },
      });
    }
  });

  it('403 for a read-only key on a mutation (queries are fine) and for another user’s endpoint', async () => {
    const readList = await graphql('query { myself { endpoints { id } } }', readKey);
    expect(readList.status).toBe(200);
    const readSave = await graphql(createDocument(template.id), readKey, 'bearer');
    expect(readSave.status).toBe(403);
    expect(readSave.body.errors![0]).toMatchObject({
      message: 'this API key is read-only',
      extensions: { code: 'FORBIDDEN' },
    });

    const alices = await createEndpoint('alices');
    const bobModify = await graphql(modifyDocument(alices.id, template.id, 'workersMax: 0'), bobKey);
    expect(bobModify.status).toBe(403);
    expect(bobModify.body.errors![0].extensions!.code).toBe('FORBIDDEN');
    const bobDelete = await graphql(`mutation { deleteEndpoint(id: "${alices.id}") }`, bobKey);
    expect(bobDelete.status).toBe(403);
    expect(bobDelete.body.errors![0].message).toMatch(/belongs to another user/);
  });

  it('refuses bad input with a clear message and a stable code', async () => {
    const bad = async (input: string) =>
      graphql(`mutation { saveEndpoint(input: { ${input} }) { id } }`, aliceKey);
    const base = `name: "x", templateId: "${template.id}"`;

    const tier = await bad(`${base}, gpuIds: "AMPERE_16,H100"`);
    expect(tier.body.errors![0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT' } });
    expect(tier.body.errors![0].message).toMatch(/"H100" is not a GPU tier/);

    const region = await bad(`${base}, gpuIds: "AMPERE_16", locations: "MARS"`);
    expect(region.body.errors![0].message).toMatch(/"MARS" is not a region/);

    const bounds = await bad(`${base}, gpuIds: "AMPERE_16", workersMin: 3, workersMax: 1`);
    expect(bounds.body.errors![0].message).toMatch(
      /workersMin \(3\) must not be greater than workersMax \(1\)/,
    );

    const scaler = await bad(`${base}, gpuIds: "AMPERE_16", scalerType: "FASTEST"`);
    expect(scaler.body.errors![0].extensions!.code).toBe('BAD_USER_INPUT');

    const quoted = await bad(`${base}, gpuIds: "AMPERE_16", flashBootType: "FLASHBOOT"`);
    expect(quoted.status).toBe(400);
    expect(quoted.body.errors![0].message).toMatch(/FlashBootType/);

    const unknownTemplate = await bad(`name: "x", templateId: "nope", gpuIds: "AMPERE_16"`);
    expect(unknownTemplate.body.errors![0]).toMatchObject({
      message: 'template nope does not exist',
      extensions: { code: 'NOT_FOUND' },
    });

    const podTemplate = (
      await rest<TemplateView>('POST', '/v1/templates', aliceKey, {
        name: 'pod-only',
        imageName: 'ubuntu:24.04',
      })
    ).body;
    const notServerless = await bad(`name: "x", templateId: "${podTemplate.id}", gpuIds: "AMPERE_16"`);
    expect(notServerless.body.errors![0].message).toMatch(/is not a serverless template/);

    const asBob = await graphql(
      `mutation { saveEndpoint(input: { ${base}, gpuIds: "AMPERE_16" }) { id } }`,
      bobKey,
    );
    expect(asBob.status).toBe(403);
    expect(asBob.body.errors![0].message).toMatch(/template .* belongs to another user/);
  });

  it('takes a network volume in an allowed location and shows where it is', async () => {
    const volume = (
      await rest<NetworkVolumeView>('POST', '/v1/networkvolumes', aliceKey, {
        name: 'models',
        size: 20,
        dataCenterId: 'EU-RO-1',
      })
    ).body;
    const outside = await graphql(
      `mutation { saveEndpoint(input: { name: "v", templateId: "${template.id}", gpuIds: "AMPERE_16",
        networkVolumeId: "${volume.id}", locations: "US" }) { id } }`,
      aliceKey,
    );
    expect(outside.body.errors![0].message).toMatch(
      /network volume .* is in data center EU-RO-1 \(region RO\)/,
    );

    const inside = await graphql<{ saveEndpoint: { id: string; networkVolumeId: string } }>(
      `mutation { saveEndpoint(input: { name: "v", templateId: "${template.id}", gpuIds: "AMPERE_16",
        networkVolumeId: "${volume.id}", locations: "RO" }) { id networkVolumeId } }`,
      aliceKey,
    );
    expect(inside.body.data!.saveEndpoint.networkVolumeId).toBe(volume.id);
    const list = await graphql<{ myself: { endpoints: { id: string; networkVolume: unknown }[] } }>(
      'query { myself { endpoints { id networkVolume { id dataCenterId } } } }',
      aliceKey,
    );
    expect(list.body.data!.myself.endpoints.find((e) => e.id === inside.body.data!.saveEndpoint.id)).toEqual({
      id: inside.body.data!.saveEndpoint.id,
      networkVolume: { id: volume.id, dataCenterId: 'EU-RO-1' },
    });

    const unknown = await graphql(
      `mutation { saveEndpoint(input: { name: "v", templateId: "${template.id}", gpuIds: "AMPERE_16",
        networkVolumeId: "vol-nope" }) { id } }`,
      aliceKey,
    );
    expect(unknown.body.errors![0].extensions!.code).toBe('NOT_FOUND');
  });

  it('saves, lists and deletes load-balancing (LB) endpoints like queue-based ones', async () => {
    const created = await graphql<{ saveEndpoint: { id: string; type: string } }>(
      `mutation { saveEndpoint(input: { name: "lb", type: "LB", templateId: "${template.id}", gpuIds: "AMPERE_16", workersMax: 0 }) { id type } }`,
      aliceKey,
    );
    expect(created.body.data!.saveEndpoint.type).toBe('LB');
    const id = created.body.data!.saveEndpoint.id;
    const list = await graphql<{ myself: { endpoints: { id: string; type: string }[] } }>(
      'query { myself { endpoints { id type } } }',
      aliceKey,
    );
    expect(list.body.data!.myself.endpoints).toContainEqual({ id, type: 'LB' });
    const typeChange = await graphql(
      `mutation { saveEndpoint(input: { id: "${id}", name: "lb", type: "QB", templateId: "${template.id}", gpuIds: "AMPERE_16" }) { id } }`,
      aliceKey,
    );
    expect(typeChange.body.errors![0].message).toMatch(/type of an endpoint cannot be changed/);
    const deleted = await graphql(`mutation { deleteEndpoint(id: "${id}") }`, aliceKey);
    expect(JSON.parse(deleted.text)).toEqual({ data: { deleteEndpoint: null } });
  });
});
