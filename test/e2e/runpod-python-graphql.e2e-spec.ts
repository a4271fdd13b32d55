import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { GpuTypeView, PodView } from '@app/contracts';
import { createKey, createUser } from '../support/accounts.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { sshPublicKey } from './clusters-fixtures.js';
import { errorCode, graphqlClient, type Graphql } from './graphql.e2e-helpers.js';
import { startMcpServer, type McpSession } from './mcp-server.e2e-helpers.js';
import { client, type Call } from './pods.e2e-helpers.js';
import {
  CREATE_CPU_POD,
  CREATE_CPU_POD_ANY,
  CREATE_GPU_POD,
  CREATE_TEMPLATE,
  GET_GPU,
  GET_GPUS,
  GET_POD,
} from './runpod-python.e2e-helpers.js';

type Json = Record<string, unknown>;

interface Created {
  id: string;
  imageName: string;
  env: string[];
  machineId: string | null;
  machine: { podHostId: string | null };
}

/**
 * RunPod's clients over GraphQL against the gateway and the pods' owners: runpod-python's calls, each document as it
 * sends it, and @runpod/mcp-server's GraphQL tools (the published server, over stdio).
 */
describe('runpod-python and @runpod/mcp-server over GraphQL', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let gql: Graphql;
  let rest: Call;
  let mcp: McpSession;

  beforeAll(async () => {
    db = await createTestDatabase('runpod_python_gql', {
      apps: ['gateway', 'cluster-scheduler', 'pod-lifecycle'],
    });
    system = await startApps({
      apps: ['gateway', 'cluster-scheduler', 'pod-lifecycle'],
      databaseUrl: db.url,
      appEnv: { 'pod-lifecycle': { RUNTIME_DRIVER: 'simulated' } },
    });
    await createUser(db.url, 'sdk', { exempt: true });
    const key = (await createKey(db.url, 'sdk')).key;
    gql = graphqlClient(system, key);
    rest = client(system, key);
    // create_pod sends startSsh: true, which needs a key on the account.
    mcp = await startMcpServer(new URL(system.url('gateway')).origin, key);
    expect((await rest('POST', '/v1/user/ssh-keys', { publicKey: sshPublicKey('sdk@host') })).status).toBe(
      201,
    );
  });

  afterAll(async () => {
    await mcp?.close();
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  });

  it('serves the schema as SDL at /graphql/schema.graphql, without a key, before any GraphQL request', async () => {
    const response = await fetch(new URL('/graphql/schema.graphql', system.url('gateway')));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const sdl = await response.text();
    expect(sdl).toContain('type GpuType {');
    expect(sdl).toContain('\n  securePrice: Float!\n');
    expect(sdl).toContain('podFindAndDeployOnDemand(input: PodFindAndDeployOnDemandInput!): Pod!');
  });

  it('get_gpus and get_gpu: every field the SDK selects, from the fleet’s prices', async () => {
    const all = await gql<{ gpuTypes: { id: string; displayName: string; memoryInGb: number }[] }>(GET_GPUS);
    expect(all.body.errors).toBeUndefined();
    expect(all.body.data!.gpuTypes).toContainEqual({
      id: 'NVIDIA RTX A4000',
      displayName: 'RTX A4000',
      memoryInGb: 16,
    });

    const one = await gql<{ gpuTypes: unknown[] }>(GET_GPU);
    expect(one.status).toBe(200);
    expect(one.body.errors).toBeUndefined();
    // The fleet's one price is its on-demand ("secure") price; it has no community, spot or savings-plan prices.
    expect(one.body.data!.gpuTypes).toEqual([
      {
        maxGpuCount: 8,
        id: 'NVIDIA RTX A4000',
        displayName: 'RTX A4000',
        manufacturer: 'Nvidia',
        memoryInGb: 16,
        cudaCores: null,
        secureCloud: true,
        communityCloud: false,
        securePrice: 0.2,
        communityPrice: null,
        oneMonthPrice: null,
        threeMonthPrice: null,
        oneWeekPrice: null,
        communitySpotPrice: null,
        secureSpotPrice: null,
        lowestPrice: { minimumBidPrice: null, uninterruptablePrice: 0.2 },
      },
    ]);
  });

  it('create_pod of a GPU pod, then get_pod of it', async () => {
    const created = await gql<{ podFindAndDeployOnDemand: Created }>(CREATE_GPU_POD);
    expect(created.body.errors).toBeUndefined();
    const pod = created.body.data!.podFindAndDeployOnDemand;
    expect(pod).toMatchObject({ imageName: 'runpod/base:0.6.2', env: expect.arrayContaining([]) });

    const read = await gql<{ pod: Record<string, unknown> }>(GET_POD(pod.id));
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data!.pod).toMatchObject({
      id: pod.id,
      name: 'sdk-gpu',
      imageName: 'runpod/base:0.6.2',
      gpuCount: 1,
      containerDiskInGb: 10,
      machine: { gpuDisplayName: 'RTX A4000' },
    });
  });

  it('get_pod of an id that names no pod answers pod: null, as RunPod does (the SDK returns None)', async () => {
    const read = await gql(GET_POD('nosuchpod00000'));
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ data: { pod: null } });
  });

  it('create_pod of a CPU pod with RunPod’s instance id, on the runpod-ubuntu template', async () => {
    const created = await gql<{ deployCpuPod: Created }>(CREATE_CPU_POD);
    expect(created.body.errors).toBeUndefined();
    const view = await rest<PodView>('GET', `/v1/pods/${created.body.data!.deployCpuPod.id}`);
    expect(view.body).toMatchObject({
      computeType: 'CPU',
      cpuFlavorId: 'cpu3c',
      gpuCount: 0,
      imageName: 'runpod/base:0.6.2-cpu',
      templateId: 'runpod-ubuntu',
    });
    expect(view.body.ports).toContain('22/tcp');
  });

  it('create_pod of a CPU pod without an instance id: any CPU type', async () => {
    const created = await gql<{ deployCpuPod: Created }>(CREATE_CPU_POD_ANY);
    expect(created.body.errors).toBeUndefined();
    const view = await rest<PodView>('GET', `/v1/pods/${created.body.data!.deployCpuPod.id}`);
    expect(view.body).toMatchObject({ computeType: 'CPU', gpuCount: 0, templateId: 'runpod-ubuntu' });
  });

  it('create_template', async () => {
    const saved = await gql<{ saveTemplate: Record<string, unknown> }>(CREATE_TEMPLATE);
    expect(saved.body.errors).toBeUndefined();
    expect(saved.body.data!.saveTemplate).toMatchObject({
      name: 'sdk-template',
      imageName: 'runpod/base:0.6.2',
      dockerArgs: 'sleep infinity',
      containerDiskInGb: 10,
      volumeInGb: 0,
      env: [],
      isServerless: false,
    });
  });

  it('names the GraphQL arguments in the pod mutations’ errors', async () => {
    const cpu = await gql(
      'mutation { deployCpuPod(input: { name: "c", imageName: "alpine:3", instanceId: "cpu9z-2-4" }) { id } }',
    );
    expect(errorCode(cpu)).toBe('BAD_USER_INPUT');
    expect(cpu.body.errors![0].message).toMatch(/instanceId must be a CPU type of the catalog \(cpu3c, /);
    expect(cpu.body.errors![0].message).toContain('"cpu9z-2-4" is neither');

    const place = await gql(
      'mutation { podFindAndDeployOnDemand(input: { name: "g", imageName: "alpine:3", gpuTypeId: "NVIDIA RTX A4000", dataCenterId: "XX-NO-1" }) { id } }',
    );
    expect(errorCode(place)).toBe('BAD_USER_INPUT');
    expect(place.body.errors![0].message).toContain('dataCenterId must be a data center id');
    expect(place.body.errors![0].message).not.toContain('dataCenterIds');

    const cpuPlace = await gql(
      'mutation { deployCpuPod(input: { name: "c", imageName: "alpine:3", dataCenterId: "XX-NO-1" }) { id } }',
    );
    expect(cpuPlace.body.errors![0].message).toContain('dataCenterId must be a data center id');
    expect(cpuPlace.body.errors![0].message).not.toContain('dataCenterIds');
  });

  it('@runpod/mcp-server: get-capacity through its public client (the key in its URL), stock from the scheduler', async () => {
    const catalog = (await rest<GpuTypeView[]>('GET', '/v2/catalog/gpus')).body;
    const a4000 = catalog.find((g) => g.id === 'NVIDIA RTX A4000')!;
    expect(a4000.availability.freeGpus).toBeGreaterThanOrEqual(8 * 8);
    expect(a4000.availability.maxFreeOnOneHost).toBe(8);
    type Rows = { items: { id: string; stockStatus?: string; pricePerHr?: number; cudaVersions: Json }[] };
    const row = (answer: Rows) => answer.items.find((r) => r.id === a4000.id);

    // Its matrix document (gpuTypes { lowestPrice(input: {gpuCount, secureCloud}) { stockStatus ... } }).
    const matrix = await mcp.ok<Rows>('get-capacity', { gpuTypeIds: ['A4000'], secureCloudOnly: true });
    expect(row(matrix)).toMatchObject({ stockStatus: 'High', pricePerHr: 0.2 });
    expect(row(matrix)!.cudaVersions).toEqual({}); // the fleet records no CUDA versions
    // Its probe document (allowedCudaVersions: ["12.8"]): the versions narrow nothing here.
    const probe = await mcp.ok<Rows>('get-capacity', {
      gpuTypeIds: ['A4000'],
      cudaVersions: ['12.8'],
      gpuCount: 8,
    });
    expect(row(probe)!.cudaVersions).toEqual({ '12.8': { stock: 'High', pricePerHr: 1.6 } });

    // No host has 9 free: none of that size can be placed, RunPod's null.
    const nine = await gql<{ gpuTypes: { lowestPrice: Json }[] }>(
      `query { gpuTypes(input: {id: "${a4000.id}"}) { lowestPrice(input: {gpuCount: 9}) { stockStatus } } }`,
    );
    expect(nine.body.data!.gpuTypes[0].lowestPrice).toEqual({ stockStatus: null });
  });

  it('answers NOT_OFFERED, naming the field, for RunPod-cloud features', async () => {
    for (const [tool, field] of [
      ['list-public-endpoints', 'allAiApiPublicConfigs'],
      ['list-hub-repos', 'listings'],
    ]) {
      const answer = await mcp.call<{ error: string }>(tool);
      expect(answer.isError).toBe(true);
      expect(answer.payload.error).toMatch(
        new RegExp(`^GraphQL error: ${field} is not offered by a self-hosted`),
      );
    }
    // The same without a key, and nothing but that error.
    const url = new URL('/graphql', system.url('gateway'));
    const reply = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'query { listings(input: {}) { id repoName } }' }),
    });
    expect(reply.status).toBe(200);
    expect(((await reply.json()) as { errors: { extensions: Json }[] }).errors).toEqual([
      expect.objectContaining({ extensions: { code: 'NOT_OFFERED', field: 'listings' } }),
    ]);
  });
});
