import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type {
  CommandEnvelope,
  EndpointV1View,
  EndpointV2View,
  ReservePodCommand,
  TemplateView,
} from '@app/contracts';
import type { RunningSystem } from '../support/system.js';
import type { TestDatabase } from '../support/test-database.js';
import { errorCode, graphqlClient, type Graphql } from './graphql.e2e-helpers.js';
import { expectProblem, readStream, until, type Call } from './pods.e2e-helpers.js';
import { startServerlessSystem, stopServerlessSystem } from './serverless-system.e2e-helpers.js';

const PRIORITY_REFUSAL = 'priority must be one of the following values: low, normal, high';

/**
 * The workers' priority of a serverless endpoint from each surface (/v1/endpoints, /v2/serverless, GraphQL's
 * `saveEndpoint`) to its worker pods' reservations, and a cluster's priority into `cluster.cmd.create`, against
 * all five apps (simulated runtime, a quick autoscaler): what the owners were sent is read from the commands stream.
 */
describe('priority of serverless workers and clusters', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let alice: Call;
  let gql: Graphql;
  let template: TemplateView;

  /** The payloads of the commands recorded on `subject` so far. */
  async function recorded<T>(subject: string): Promise<T[]> {
    const prefix = system.natsPrefix;
    const messages = await readStream(`${prefix}_COMMANDS`, `${prefix}.${subject}`);
    return messages.map((m) => (JSON.parse(m.data) as CommandEnvelope<T>).payload);
  }

  beforeAll(async () => {
    let aliceKey: string;
    ({ db, system, alice, aliceKey, template } = await startServerlessSystem('endpoints_priority', {
      'pod-lifecycle': { RUNTIME_DRIVER: 'simulated', SIM_PROVISION_MS: '100', SIM_START_MS: '100' },
      'endpoint-autoscaler': { AUTOSCALER_TICK_MS: '200' },
    }));
    gql = graphqlClient(system, aliceKey);
  });

  afterAll(() => stopServerlessSystem({ db, system }));

  it('/v1: a high-priority endpoint’s worker pod is placed high, never interruptible; v2 and GraphQL show it', async () => {
    const created = await alice<EndpointV1View>('POST', '/v1/endpoints', {
      name: 'urgent-inference',
      templateId: template.id,
      gpuTypeIds: ['AMPERE_16'],
      workersMin: 1,
      workersMax: 1,
      priority: 'high',
    });
    expect(created.status).toBe(200);
    expect(created.body.priority).toBe('high');
    const id = created.body.id;
    const worker = await until('a worker pod', async () => {
      const reply = await alice<EndpointV1View>('GET', `/v1/endpoints/${id}?includeWorkers=true`);
      return reply.body.workers?.[0];
    });
    expect(worker).toMatchObject({ priority: 'high', interruptible: false });
    const reserves = await recorded<ReservePodCommand>('placement.cmd.reserve');
    expect(reserves.filter((r) => r.podId === worker.id)).toEqual([
      expect.objectContaining({ priority: 'high', interruptible: false }),
    ]);
    expect((await alice<EndpointV2View>('GET', `/v2/serverless/${id}`)).body.priority).toBe('high');
    const mine = await gql<{ myself: { endpoints: { id: string; priority: string }[] } }>(
      'query { myself { endpoints { id priority } } }',
    );
    expect(mine.body.data!.myself.endpoints.find((e) => e.id === id)).toEqual({ id, priority: 'high' });
    expect((await alice('PATCH', `/v1/endpoints/${id}`, { workersMin: 0, workersMax: 0 })).status).toBe(200);
  });

  it('/v2 and GraphQL: set at create (normal by default), changed by an update, kept when an update omits it', async () => {
    const body = { name: 'v2', type: 'QUEUE', templateId: template.id, gpu: { pools: ['AMPERE_16'] } };
    const v2 = await alice<EndpointV2View>('POST', '/v2/serverless', body);
    expect(v2.status).toBe(201);
    expect(v2.body.priority).toBe('normal');
    const patch = (change: object) => alice<EndpointV2View>('PATCH', `/v2/serverless/${v2.body.id}`, change);
    expect((await patch({ priority: 'low' })).body.priority).toBe('low');
    expect((await patch({ name: 'v2-renamed' })).body).toMatchObject({ name: 'v2-renamed', priority: 'low' });

    const save = (fields: string) =>
      gql<{ saveEndpoint: { id: string; priority: string } }>(
        `mutation { saveEndpoint(input: { name: "gql", templateId: "${template.id}", gpuIds: "AMPERE_16"${fields} }) { id priority } }`,
      );
    const saved = (await save(', priority: "high"')).body.data!.saveEndpoint;
    expect(saved.priority).toBe('high');
    const modified = (await save(`, id: "${saved.id}", workersMax: 2`)).body.data!.saveEndpoint;
    expect(modified).toEqual({ id: saved.id, priority: 'high' });
    expect((await alice<EndpointV1View>('GET', `/v1/endpoints/${saved.id}`)).body.priority).toBe('high');
  });

  it('refuses another priority on every surface in its own words, and saves nothing', async () => {
    const before = (await alice<EndpointV1View[]>('GET', '/v1/endpoints')).body.length;
    const v1 = await alice('POST', '/v1/endpoints', {
      name: 'bad',
      templateId: template.id,
      gpuTypeIds: ['AMPERE_16'],
      priority: 'urgent',
    });
    expectProblem(v1, 422);
    expect(v1.body.errors).toEqual([PRIORITY_REFUSAL]);
    const v2 = await alice('POST', '/v2/serverless', {
      name: 'bad',
      type: 'QUEUE',
      templateId: template.id,
      gpu: { pools: ['AMPERE_16'] },
      priority: 'HIGH',
    });
    expectProblem(v2, 422);
    expect(v2.body.errors).toEqual([PRIORITY_REFUSAL]);
    const graphql = await gql(
      `mutation { saveEndpoint(input: { name: "bad", templateId: "${template.id}", gpuIds: "AMPERE_16", priority: "urgent" }) { id } }`,
    );
    expect(errorCode(graphql)).toBe('BAD_USER_INPUT');
    expect(graphql.body.errors![0].message).toContain(PRIORITY_REFUSAL);
    expect((await alice<EndpointV1View[]>('GET', '/v1/endpoints')).body.length).toBe(before);
  });

  it('a cluster’s priority goes to the scheduler with cluster.cmd.create; another value is 422', async () => {
    const cluster = {
      name: 'prio-cluster',
      type: 'TRAINING',
      compute: { gpuTypeId: 'NVIDIA RTX A4000', gpuCountPerPod: 1, podCount: 2 },
      image: 'alpine:3',
    };
    // Placed or not (the scheduler's answer), the command it was sent carries the priority.
    const created = await alice('POST', '/v2/clusters', { ...cluster, priority: 'high' });
    expect([201, 409]).toContain(created.status);
    const commands = await recorded<{ name: string; priority?: string }>('cluster.cmd.create');
    expect(commands).toEqual([expect.objectContaining({ name: 'prio-cluster', priority: 'high' })]);
    const refused = await alice('POST', '/v2/clusters', { ...cluster, priority: 'urgent' });
    expectProblem(refused, 422);
    expect(refused.body.errors).toEqual([PRIORITY_REFUSAL]);
    expect(await recorded('cluster.cmd.create')).toHaveLength(1);
  });
});
