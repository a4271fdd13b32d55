import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type {
  EndpointV2List,
  EndpointV2View,
  NetworkVolumeView,
  TemplateView,
  WorkerList,
} from '@app/contracts';
import type { RunningSystem } from '../support/system.js';
import type { TestDatabase } from '../support/test-database.js';
import { expectProblem, type Call } from './pods.e2e-helpers.js';
import { startServerlessSystem, stopServerlessSystem } from './serverless-system.e2e-helpers.js';

interface GraphqlEndpoint {
  id: string;
  name: string;
  gpuIds: string;
  workersMin: number;
  workersMax: number;
  scalerType: string;
  scalerValue: number;
  aiKey: string | null;
  version: number;
}

const GQL_FIELDS = 'id name gpuIds workersMin workersMax scalerType scalerValue aiKey version';

/**
 * The management API v2's serverless routes (`/v2/serverless`) against the gateway, endpoint-autoscaler (scaling
 * off), queue-broker, pod-lifecycle and the scheduler, real Postgres and NATS: the same records GraphQL's
 * `saveEndpoint` manages, read and changed from either side, and the workers the broker knows.
 */
describe('serverless endpoints, management API v2', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let alice: Call;
  let bob: Call;
  let reader: Call;
  let aliceKey: string;
  let template: TemplateView;

  const body = (name: string, extra: Record<string, unknown> = {}) => ({
    name,
    type: 'QUEUE',
    templateId: template.id,
    gpu: { pools: ['AMPERE_16', 'ADA_24'], count: 1 },
    workers: { min: 0, max: 2, idleTimeout: 10 },
    scaling: { type: 'QUEUE_DELAY', queueDelay: 4 },
    env: { MODEL: 'm', HF_TOKEN: 'hf_secret' },
    ...extra,
  });

  async function create(name: string, extra: Record<string, unknown> = {}): Promise<EndpointV2View> {
    const reply = await alice<EndpointV2View>('POST', '/v2/serverless', body(name, extra));
    expect(reply.status).toBe(201);
    return reply.body;
  }

  async function graphql<T>(query: string, key = aliceKey): Promise<T> {
    const response = await fetch(`${system.url('gateway')}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ query }),
    });
    const answer = (await response.json()) as { data?: T; errors?: unknown };
    expect(answer.errors).toBeUndefined();
    return answer.data!;
  }

  const gqlEndpoints = async () =>
    (
      await graphql<{ myself: { endpoints: GraphqlEndpoint[] } }>(
        `query { myself { endpoints { ${GQL_FIELDS} } } }`,
      )
    ).myself.endpoints;

  beforeAll(async () => {
    ({ db, system, alice, aliceKey, bob, reader, template } = await startServerlessSystem('serverless_v2', {
      'pod-lifecycle': { RUNTIME_DRIVER: 'simulated' },
      'endpoint-autoscaler': { AUTOSCALER_ENABLED: 'false' },
    }));
  });

  afterAll(() => stopServerlessSystem({ db, system }));

  it('creates an endpoint (201) that GraphQL lists as the same record; a read key sees aiKey null', async () => {
    const created = await create('v2-first');
    expect(created).toMatchObject({
      id: expect.stringMatching(/^[a-z0-9]{14}$/),
      name: 'v2-first',
      type: 'QUEUE',
      templateId: template.id,
      gpu: { pools: ['AMPERE_16', 'ADA_24'], count: 1, allowedCudaVersions: [] },
      workers: { min: 0, max: 2, idleTimeout: 10 },
      scaling: { type: 'QUEUE_DELAY', queueDelay: 4 },
      flashboot: 'OFF',
      networkVolumes: [],
      env: { MODEL: 'm', HF_TOKEN: 'hf_secret' },
      aiKey: expect.any(String),
      version: 1,
    });
    expect((await alice<EndpointV2View>('GET', `/v2/serverless/${created.id}`)).body).toEqual(created);
    expect((await gqlEndpoints()).find((e) => e.id === created.id)).toEqual({
      id: created.id,
      name: 'v2-first',
      gpuIds: 'AMPERE_16,ADA_24',
      workersMin: 0,
      workersMax: 2,
      scalerType: 'QUEUE_DELAY',
      scalerValue: 4,
      aiKey: created.aiKey,
      version: 1,
    });

    const read = await reader<EndpointV2View>('GET', `/v2/serverless/${created.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ aiKey: null, env: { MODEL: 'm', HF_TOKEN: '********' } });
    const list = await reader<EndpointV2List>('GET', '/v2/serverless');
    expect(list.body.endpoints.find((e) => e.id === created.id)).toMatchObject({ aiKey: null });
    expect(list.text).not.toContain(created.aiKey!);
    expectProblem(await reader('POST', '/v2/serverless', body('by-reader')), 403);
    expect((await bob<EndpointV2List>('GET', '/v2/serverless')).body).toEqual({ endpoints: [] });
  });

  it('updates with PATCH (200) an endpoint GraphQL created; absent fields keep their values', async () => {
    const { saveEndpoint } = await graphql<{ saveEndpoint: GraphqlEndpoint }>(
      `mutation { saveEndpoint(input: { name: "from-gql", templateId: "${template.id}", gpuIds: "AMPERE_24",
        workersMax: 3 }) { ${GQL_FIELDS} } }`,
    );
    const patched = await alice<EndpointV2View>('PATCH', `/v2/serverless/${saveEndpoint.id}`, {
      workers: { max: 5 },
      scaling: { type: 'REQUEST_COUNT', requestCount: 2 },
      flashboot: 'FLASHBOOT',
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      name: 'from-gql',
      gpu: { pools: ['AMPERE_24'] },
      workers: { min: 0, max: 5 },
      scaling: { type: 'REQUEST_COUNT', requestCount: 2 },
      flashboot: 'FLASHBOOT',
      aiKey: saveEndpoint.aiKey,
      version: 2,
    });
    expect((await gqlEndpoints()).find((e) => e.id === saveEndpoint.id)).toMatchObject({
      workersMax: 5,
      scalerType: 'REQUEST_COUNT',
      scalerValue: 2,
      version: 2,
    });
    const tooMany = await alice<{ errors: string[] }>('PATCH', `/v2/serverless/${saveEndpoint.id}`, {
      workers: { min: 6 },
    });
    expectProblem(tooMany, 422);
    expect(tooMany.body.errors).toEqual(['workers.min (6) must not be greater than workers.max (5)']);
  });

  it('deletes (204) only once workers.min and workers.max are 0 (409 before), as GraphQL does', async () => {
    const { id } = await create('to-delete');
    // In v2's fields, with the v2 route that fixes it (GraphQL's deleteEndpoint keeps saveEndpoint's words).
    const refused = await alice('DELETE', `/v2/serverless/${id}`);
    expectProblem(refused, 409);
    expect(refused.body.detail).toBe(
      `endpoint ${id} has workers.min 0 and workers.max 2: set both to 0 with PATCH /v2/serverless/${id} ` +
        '{"workers": {"min": 0, "max": 0}} before deleting it',
    );
    expect((await alice('PATCH', `/v2/serverless/${id}`, { workers: { min: 0, max: 0 } })).status).toBe(200);
    expectProblem(await bob('DELETE', `/v2/serverless/${id}`), 403);
    const deleted = await alice('DELETE', `/v2/serverless/${id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expectProblem(await alice('GET', `/v2/serverless/${id}`), 404);
    expect((await gqlEndpoints()).map((e) => e.id)).not.toContain(id);
  });

  it("answers 404 for an unknown endpoint and 403 for another user's, on every route", async () => {
    const { id } = await create('private');
    for (const [method, path] of [
      ['GET', ''],
      ['PATCH', ''],
      ['DELETE', ''],
      ['GET', '/workers'],
      ['GET', '/workers/w1/logs'],
    ] as const) {
      const payload = method === 'PATCH' ? { name: 'x' } : undefined;
      expectProblem(await alice(method, `/v2/serverless/nope${path}`, payload), 404);
      expectProblem(await bob(method, `/v2/serverless/${id}${path}`, payload), 403);
    }
    expect((await alice<EndpointV2View>('GET', `/v2/serverless/${id}`)).body.name).toBe('private');
  });

  it('refuses invalid bodies with 422 and creates nothing', async () => {
    const before = (await alice<EndpointV2List>('GET', '/v2/serverless')).body.endpoints.length;
    const { gpu: _gpu, ...noGpu } = body('x');
    for (const bad of [
      noGpu,
      body('x', { gpu: { pools: ['H100'] } }),
      body('x', { type: 'QB' }),
      body('x', { scaling: { type: 'QUEUE_DELAY' } }),
      body('x', { workers: { min: 3, max: 1 } }),
      body('x', { image: 'alpine:3' }),
      body('x', { networkVolumes: ['a', 'b'] }),
      body('x', { flashboot: 'PRIORITY_FLASHBOOT' }),
    ]) {
      expectProblem(await alice('POST', '/v2/serverless', bad), 422);
    }
    const plain = await alice<TemplateView>('POST', '/v1/templates', {
      name: 'pod-only',
      imageName: 'alpine:3',
    });
    const notServerless = await alice<{ errors: string[] }>(
      'POST',
      '/v2/serverless',
      body('x', { templateId: plain.body.id }),
    );
    expectProblem(notServerless, 422);
    expect(notServerless.body.errors[0]).toMatch(/is not a serverless template/);
    expectProblem(await alice('POST', '/v2/serverless', body('x', { templateId: 'nope' })), 404);
    expect((await alice<EndpointV2List>('GET', '/v2/serverless')).body.endpoints.length).toBe(before);
  });

  it("mounts a network volume of the caller's (networkVolumes) and removes it with []", async () => {
    const volume = await alice<NetworkVolumeView>('POST', '/v1/networkvolumes', {
      name: 'weights',
      size: 10,
      dataCenterId: 'EU-RO-1',
    });
    expect(volume.status).toBe(201);
    const created = await create('with-volume', { networkVolumes: [volume.body.id] });
    expect(created.networkVolumes).toEqual([volume.body.id]);
    const cleared = await alice<EndpointV2View>('PATCH', `/v2/serverless/${created.id}`, {
      networkVolumes: [],
    });
    expect(cleared.body.networkVolumes).toEqual([]);
  });

  it('lists the workers the broker knows, by status, with version and isStale', async () => {
    const { id } = await create('with-workers');
    const empty = await alice<WorkerList>('GET', `/v2/serverless/${id}/workers`);
    expect(empty.body).toEqual({
      workers: [],
      summary: { total: 0, running: 0, idle: 0, initializing: 0, throttled: 0, unhealthy: 0 },
    });

    // w-init has only pinged; w-bad reports a failed start-up check; w-run takes the one job.
    expect((await alice('GET', `/v2/${id}/ping/w-init?runpod_version=1.7.9`)).status).toBe(200);
    expect(
      (await alice('GET', `/v2/${id}/ping/w-bad?status=unhealthy&check=cuda&reason=no+gpu`)).status,
    ).toBe(200);
    expect((await alice('POST', `/v2/${id}/run`, { input: { n: 1 } })).status).toBe(200);
    const taken = await alice<{ id: string }>('GET', `/v2/${id}/job-take/w-run`);
    expect(taken.status).toBe(200);

    const reply = await alice<WorkerList>('GET', `/v2/serverless/${id}/workers`);
    expect(reply.status).toBe(200);
    const byId = Object.fromEntries(reply.body.workers.map((w) => [w.id, w]));
    expect(byId['w-init']).toMatchObject({ status: 'INITIALIZING', version: '1.7.9', isStale: false });
    expect(byId['w-bad']).toMatchObject({ status: 'UNHEALTHY', isStale: false });
    expect(byId['w-run']).toMatchObject({
      status: 'RUNNING',
      isStale: false,
      currentJobs: [taken.body.id],
      currentJobCount: 1,
    });
    // Workers the platform did not start (these call with the user's key) have no pod and so no restarts.
    expect(byId['w-init']).toMatchObject({ podId: null, podStatus: null, restarts: null, currentJobs: [] });
    expect(reply.body.summary).toEqual({
      total: 3,
      running: 1,
      idle: 0,
      initializing: 1,
      throttled: 0,
      unhealthy: 1,
    });

    const done = await alice('POST', `/v2/${id}/job-done/w-run/${taken.body.id}`, { output: { ok: true } });
    expect(done.status).toBe(200);
    const after = await alice<WorkerList>('GET', `/v2/serverless/${id}/workers`);
    expect(after.body.workers.find((w) => w.id === 'w-run')).toMatchObject({
      status: 'IDLE',
      currentJobs: [],
      currentJobCount: 0,
    });
    // The list and /health count alike.
    const health = await alice<{ workers: Record<string, number> }>('GET', `/v2/${id}/health`);
    expect(health.body.workers).toEqual({ idle: 1, running: 0, initializing: 1, unhealthy: 1 });
    expect((await reader('GET', `/v2/serverless/${id}/workers`)).status).toBe(200);
  });

  it('answers 404 for the logs of a worker the endpoint does not have (pod-logs.e2e-spec.ts serves some)', async () => {
    const { id } = await create('logs');
    expectProblem(await alice('GET', `/v2/serverless/${id}/workers/w1/logs`), 404);
  });
});
