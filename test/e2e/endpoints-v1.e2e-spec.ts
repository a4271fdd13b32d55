import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { EndpointV1View, EndpointV2View, TemplateView } from '@app/contracts';
import type { RunningSystem } from '../support/system.js';
import type { TestDatabase } from '../support/test-database.js';
import { graphqlClient, type Graphql } from './graphql.e2e-helpers.js';
import { expectProblem, until, type Call, type Reply } from './pods.e2e-helpers.js';
import { startServerlessSystem, stopServerlessSystem } from './serverless-system.e2e-helpers.js';

const AMPERE_16 = ['NVIDIA RTX A4000'];
const ADA_24 = ['NVIDIA GeForce RTX 4090', 'NVIDIA L4'];

/**
 * REST v1's serverless endpoints (`/v1/endpoints`) against all five apps (simulated runtime, a quick autoscaler,
 * real Postgres and NATS): RunPod's v1 names on the records /v2/serverless and GraphQL's `saveEndpoint` manage,
 * read and changed from every side; a create answers 200, lists are bare arrays, errors carry `message`.
 */
describe('serverless endpoints, REST v1', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let alice: Call;
  let bob: Call;
  let reader: Call;
  let gql: Graphql;
  let template: TemplateView;

  const body = (name: string, extra: Record<string, unknown> = {}) => ({
    name,
    templateId: template.id,
    gpuTypeIds: ['NVIDIA RTX A4000', 'ADA_24'],
    workersMin: 0,
    workersMax: 2,
    env: { MODEL: 'm', HF_TOKEN: 'hf_secret' },
    ...extra,
  });
  async function create(name: string, extra: Record<string, unknown> = {}): Promise<EndpointV1View> {
    const reply = await alice<EndpointV1View>('POST', '/v1/endpoints', body(name, extra));
    expect(reply.status).toBe(200);
    return reply.body;
  }
  const get = (id: string, query = '', call: Call = alice) =>
    call<EndpointV1View>('GET', `/v1/endpoints/${id}${query}`);

  /** A v1 error: problem+json with the `message` runpodctl prints. */
  function expectV1Error<T>(reply: Reply<T>, status: number, message?: RegExp): void {
    expectProblem(reply, status);
    expect((reply.body as { message?: unknown }).message).toMatch(message ?? /./);
  }

  beforeAll(async () => {
    let aliceKey: string;
    ({ db, system, alice, aliceKey, bob, reader, template } = await startServerlessSystem('endpoints_v1', {
      'pod-lifecycle': { RUNTIME_DRIVER: 'simulated', SIM_PROVISION_MS: '100', SIM_START_MS: '100' },
      'endpoint-autoscaler': { AUTOSCALER_TICK_MS: '200' },
    }));
    gql = graphqlClient(system, aliceKey);
  });

  afterAll(() => stopServerlessSystem({ db, system }));

  it('creates (200) with GPU types or pools; reads it back, bare lists, includeTemplate; v2 sees the record', async () => {
    const created = await create('v1-first', {
      idleTimeout: 10,
      scalerType: 'REQUEST_COUNT',
      scalerValue: 2,
      flashboot: true,
      allowedCudaVersions: ['12.1', '12.4'],
    });
    expect(created).toEqual({
      id: expect.stringMatching(/^[a-z0-9]{14}$/),
      name: 'v1-first',
      userId: expect.any(String),
      templateId: template.id,
      computeType: 'GPU',
      gpuTypeIds: [...AMPERE_16, ...ADA_24],
      gpuIds: 'AMPERE_16,ADA_24',
      gpuCount: 1,
      locations: '',
      networkVolumeId: null,
      idleTimeout: 10,
      scalerType: 'REQUEST_COUNT',
      scalerValue: 2,
      workersMin: 0,
      workersMax: 2,
      flashboot: true,
      allowedCudaVersions: ['12.1', '12.4'],
      env: { MODEL: 'm', HF_TOKEN: 'hf_secret' },
      priority: 'normal',
      aiKey: expect.any(String),
      version: 1,
      createdAt: expect.any(String),
    });
    expect((await get(created.id)).body).toEqual(created);

    const list = await alice<EndpointV1View[]>('GET', '/v1/endpoints?includeTemplate=true');
    expect(Array.isArray(list.body)).toBe(true);
    const listed = list.body.find((e) => e.id === created.id)!;
    expect(listed.template).toMatchObject({ id: template.id, imageName: 'gpucp/echo-worker:latest' });
    expect(listed).not.toHaveProperty('workers');
    expect((await get(created.id, '?includeWorkers=true')).body.workers).toEqual([]);

    expect((await alice<EndpointV2View>('GET', `/v2/serverless/${created.id}`)).body).toMatchObject({
      gpu: { pools: ['AMPERE_16', 'ADA_24'], allowedCudaVersions: ['12.1', '12.4'] },
      scaling: { type: 'REQUEST_COUNT', requestCount: 2 },
      flashboot: 'FLASHBOOT',
      aiKey: created.aiKey,
    });

    const read = await get(created.id, '', reader);
    expect(read.body).toMatchObject({ aiKey: null, env: { MODEL: 'm', HF_TOKEN: '********' } });
    expectV1Error(await reader('POST', '/v1/endpoints', body('by-reader')), 403);
    expect((await bob<EndpointV1View[]>('GET', '/v1/endpoints')).body).toEqual([]);
  });

  it('updates with PATCH and POST /update (absent fields kept) endpoints made on v2 and GraphQL', async () => {
    const v2 = await alice<EndpointV2View>('POST', '/v2/serverless', {
      name: 'from-v2',
      type: 'QUEUE',
      templateId: template.id,
      gpu: { pools: ['AMPERE_24'] },
    });
    expect(v2.status).toBe(201);
    const patched = await alice<EndpointV1View>('PATCH', `/v1/endpoints/${v2.body.id}`, {
      name: 'renamed',
      workersMax: 5,
      scalerType: 'QUEUE_DELAY',
      scalerValue: 7,
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'renamed', gpuIds: 'AMPERE_24', workersMax: 5, version: 2 });
    expect((await alice<EndpointV2View>('GET', `/v2/serverless/${v2.body.id}`)).body).toMatchObject({
      name: 'renamed',
      workers: { max: 5 },
      scaling: { type: 'QUEUE_DELAY', queueDelay: 7 },
    });

    const saved = await gql<{ saveEndpoint: { id: string } }>(
      `mutation { saveEndpoint(input: { name: "from-gql", templateId: "${template.id}", gpuIds: "AMPERE_16",
        workersMax: 3, networkVolumeId: "" }) { id } }`,
    );
    expect(saved.body.errors).toBeUndefined();
    const id = saved.body.data!.saveEndpoint.id;
    const posted = await alice<EndpointV1View>('POST', `/v1/endpoints/${id}/update`, {
      idleTimeout: 30,
      gpuTypeIds: ['NVIDIA L4'],
    });
    expect(posted.status).toBe(200);
    expect(posted.body).toMatchObject({ name: 'from-gql', workersMax: 3, idleTimeout: 30, gpuIds: 'ADA_24' });
    const mine = await gql<{ myself: { endpoints: { id: string; gpuIds: string; idleTimeout: number }[] } }>(
      'query { myself { endpoints { id gpuIds idleTimeout } } }',
    );
    expect(mine.body.data!.myself.endpoints.find((e) => e.id === id)).toEqual({
      id,
      gpuIds: 'ADA_24',
      idleTimeout: 30,
    });
  });

  it('includeWorkers embeds the worker pods; delete is refused (409) until workers are 0, then 204', async () => {
    const { id } = await create('with-worker', { workersMin: 1, workersMax: 1 });
    const withWorker = await until('a worker pod', async () => {
      const reply = await get(id, '?includeWorkers=true&includeTemplate=true');
      return reply.body.workers?.length ? reply.body : null;
    });
    expect(withWorker.workers![0]).toMatchObject({ id: expect.any(String), imageName: template.imageName });
    expect(withWorker.template).toMatchObject({ id: template.id });

    expectV1Error(
      await alice('DELETE', `/v1/endpoints/${id}`),
      409,
      /workersMin 1 and workersMax 1: set both to 0 with PATCH \/v1\/endpoints\/\w+ \{"workersMin": 0, "workersMax": 0\}/,
    );
    expectV1Error(await bob('DELETE', `/v1/endpoints/${id}`), 403);
    const zero = await alice('PATCH', `/v1/endpoints/${id}`, { workersMin: 0, workersMax: 0 });
    expect(zero.status).toBe(200);
    const deleted = await alice('DELETE', `/v1/endpoints/${id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expectV1Error(await get(id), 404);
  });

  it("answers 404 for an unknown endpoint and 403 for another user's, on every route", async () => {
    const { id } = await create('private');
    for (const [method, path] of [
      ['GET', ''],
      ['PATCH', ''],
      ['POST', '/update'],
      ['DELETE', ''],
    ] as const) {
      const payload = method === 'GET' || method === 'DELETE' ? undefined : { name: 'x' };
      expectV1Error(await alice(method, `/v1/endpoints/nope${path}`, payload), 404, /nope/);
      expectV1Error(await bob(method, `/v1/endpoints/${id}${path}`, payload), 403);
    }
    expect((await get(id)).body.name).toBe('private');
  });

  it('refuses invalid bodies with 422 (404 for an unknown template or volume) and creates nothing', async () => {
    const before = (await alice<EndpointV1View[]>('GET', '/v1/endpoints')).body.length;
    const { templateId: _t, ...noTemplate } = body('x');
    const { gpuTypeIds: _g, ...noGpus } = body('x');
    for (const [bad, message] of [
      [noTemplate, /templateId/],
      [noGpus, /gpuTypeIds/],
      [body('x', { gpuTypeIds: ['NVIDIA NOPE'] }), /"NVIDIA NOPE" is neither a GPU pool/],
      [body('x', { computeType: 'CPU' }), /computeType must be GPU/],
      [body('x', { workersMin: 3, workersMax: 1 }), /workersMin \(3\) must not be greater/],
      [body('x', { executionTimeoutMs: 600000 }), /property executionTimeoutMs should not exist/],
      [body('x', { allowedCudaVersions: ['12'] }), /allowedCudaVersions/],
    ] as const) {
      expectV1Error(await alice('POST', '/v1/endpoints', bad), 422, message);
    }
    const plain = await alice<TemplateView>('POST', '/v1/templates', {
      name: 'pod-only',
      imageName: 'alpine:3',
    });
    expectV1Error(
      await alice('POST', '/v1/endpoints', body('x', { templateId: plain.body.id })),
      422,
      /is not a serverless template/,
    );
    expectV1Error(await alice('POST', '/v1/endpoints', body('x', { templateId: 'nope' })), 404);
    expectV1Error(await alice('POST', '/v1/endpoints', body('x', { networkVolumeId: 'nope' })), 404);
    expect((await alice<EndpointV1View[]>('GET', '/v1/endpoints')).body.length).toBe(before);

    const { id } = await create('kept');
    expectV1Error(await alice('PATCH', `/v1/endpoints/${id}`, { workersMin: 9 }), 422, /workersMin \(9\)/);
    expect((await get(id)).body).toMatchObject({ workersMin: 0, version: 1 });
  });
});
