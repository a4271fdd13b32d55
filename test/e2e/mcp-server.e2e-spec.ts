import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EndpointV2View, NetworkVolumeView, PodV2List, PodV2View, TemplateV2View } from '@app/contracts';
import { userWithKey } from '../support/accounts.js';
import { GATEWAY_ORIGIN, deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { sshPublicKey } from './clusters-fixtures.js';
import { REFUSED_MARK, startMcpServer, type McpSession } from './mcp-server.e2e-helpers.js';
import { client, until, type Call } from './pods.e2e-helpers.js';

type Json = Record<string, unknown>;

/** The catalog of this test: a serverless template of the SDK's echo worker, which the local runtime runs. */
const CATALOG = {
  version: 1,
  templates: [{ id: 'test-echo-worker', name: 'Echo', imageName: 'gpucp/echo-worker', isServerless: true }],
};

/**
 * RunPod's own MCP server (`@runpod/mcp-server`, pinned), unmodified, over stdio against the five apps: the pod,
 * template, registry, network volume, serverless endpoint, catalog and job tools an agent calls, each result
 * checked against what the REST API then shows. Worker pods run the echo worker as real processes.
 */
describe('@runpod/mcp-server against the running system', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let mcp: McpSession;
  let rest: Call;
  let templateId: string;
  let endpointId: string;
  let idleId: string;
  let pool: string;

  /** An endpoint of the catalog's echo worker; `max` 0: no worker ever takes its jobs. */
  const createEndpoint = (name: string, max: number) =>
    mcp.ok<EndpointV2View>('create-endpoint', {
      body: {
        name,
        type: 'QUEUE',
        templateId: 'test-echo-worker',
        gpu: { pools: [pool], count: 1 },
        workers: { min: 0, max, idleTimeout: 30 },
        scaling: { type: 'QUEUE_DELAY', queueDelay: 1 },
      },
    });

  const podStatus = async (id: string) => (await rest<PodV2View>('GET', `/v2/pods/${id}`)).body.status;

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-e2e-'));
    writeFileSync(join(dir, 'catalog-templates.json'), JSON.stringify(CATALOG));
    db = await createTestDatabase('mcp');
    system = await startApps({
      databaseUrl: db.url,
      appEnv: {
        'pod-lifecycle': {
          CATALOG_TEMPLATES_FILE: join(dir, 'catalog-templates.json'),
          LOCAL_PODS_DIR: join(dir, 'pods'),
          LOCAL_READY_MS: '100',
          SIM_PROVISION_MS: '100',
          SIM_START_MS: '100',
        },
        // The workers reach the job routes at the gateway.
        'endpoint-autoscaler': {
          AUTOSCALER_TICK_MS: '200',
          QUEUE_PUBLIC_URL: GATEWAY_ORIGIN,
          WORKER_PING_INTERVAL_MS: '1000',
        },
      },
    });
    const gateway = new URL(system.url('gateway')).origin;
    const { key } = await userWithKey(db.url, 'agent');
    rest = client(system, key);
    mcp = await startMcpServer(gateway, key);
  });

  afterAll(async () => {
    await mcp?.close();
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  });

  it('serves its tools', async () => {
    // 68 in 4.0.0; the last test checks that this file called every one of them.
    expect(await mcp.toolNames()).toHaveLength(68);
  });

  it('catalog: GPU types, data centers and the public templates', async () => {
    // An agent takes a serverless endpoint's `gpu.pools` from the GPU types' `pool`, as the tool's help says.
    const gpus = await mcp.ok<{ id: string; pool: string }[]>('list-gpu-types');
    pool = gpus.find((g) => g.id === 'NVIDIA RTX A4000')!.pool;
    expect(pool).toBe('AMPERE_16');
    expect(await mcp.ok<{ id: string }[]>('list-data-centers')).toContainEqual(
      expect.objectContaining({ id: 'EU-RO-1' }),
    );
    const { templates } = await mcp.ok<{ templates: TemplateV2View[] }>('list-public-templates', {
      source: 'official',
    });
    expect(templates).toEqual([expect.objectContaining({ id: 'test-echo-worker', public: true })]);
    expect(await mcp.ok('get-template', { id: 'test-echo-worker' })).toMatchObject({ serverless: true });
  });

  it('catalog by id: a GPU type, a CPU type, a data center; capacity from the fleet', async () => {
    expect(await mcp.ok('get-gpu-type', { id: 'NVIDIA RTX A4000', include: ['AVAILABILITY'] })).toMatchObject(
      {
        id: 'NVIDIA RTX A4000',
      },
    );
    const cpus = await mcp.ok<{ id: string }[]>('list-cpu-types');
    expect(cpus.map((c) => c.id)).toContain('cpu3c');
    expect(await mcp.ok('get-cpu-type', { id: 'cpu3c' })).toMatchObject({ id: 'cpu3c' });
    expect(await mcp.ok('get-data-center', { id: 'EU-RO-1' })).toMatchObject({ id: 'EU-RO-1' });
    // get-capacity asks the "public" GraphQL for each GPU type's stock; the fleet has free A4000s.
    const capacity = await mcp.ok<{ items: { id: string; stockStatus: string }[] }>('get-capacity', {
      gpuTypeIds: ['A4000'],
    });
    expect(capacity.items).toEqual([expect.objectContaining({ id: 'NVIDIA RTX A4000' })]);
    expect(['High', 'Medium', 'Low']).toContain(capacity.items[0].stockStatus);
  });

  it('SSH keys: replace, then read', async () => {
    const key = sshPublicKey('agent@mcp');
    await mcp.ok('update-ssh-keys', { body: { keys: [key] } });
    expect(await mcp.ok('get-ssh-keys')).toEqual({ keys: [key] });
  });

  it('templates: create, list, get, update; a catalog template is read-only', async () => {
    const created = await mcp.ok<TemplateV2View>('create-template', {
      body: {
        name: 'mcp-tpl',
        image: 'runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04',
        ports: ['8888/http'],
      },
    });
    templateId = created.id;
    const listed = await mcp.ok<{ templates: Json[] }>('list-templates');
    expect(listed.templates).toEqual([
      { id: templateId, name: 'mcp-tpl', image: created.image, serverless: false },
    ]);
    await mcp.ok('update-template', { id: templateId, body: { name: 'mcp-tpl-2', env: { EPOCHS: '3' } } });
    expect(await mcp.ok('get-template', { id: templateId })).toMatchObject({
      name: 'mcp-tpl-2',
      env: { EPOCHS: '3' },
    });
    expect((await rest<TemplateV2View>('GET', `/v2/templates/${templateId}`)).body.name).toBe('mcp-tpl-2');
    const refused = await mcp.call<Json>('update-template', {
      id: 'test-echo-worker',
      body: { name: 'mine' },
    });
    expect(refused).toMatchObject({ isError: true, payload: { status: 403 } });
  });

  it('registries: create, list, get, delete', async () => {
    const created = await mcp.ok<{ id: string; name: string }>('create-registry', {
      body: { name: 'mcp-ghcr', username: 'bot', password: 's3cret' },
    });
    expect(await mcp.ok('list-registries')).toEqual({ registries: [created] });
    expect(await mcp.ok('get-registry', { id: created.id })).toEqual(created);
    expect(await mcp.ok('delete-registry', { id: created.id })).toEqual({ status: 204 });
    expect((await rest('GET', `/v2/registries/${created.id}`)).status).toBe(404);
  });

  it('network volumes: create, list, get, grow, delete', async () => {
    const created = await mcp.ok<NetworkVolumeView>('create-network-volume', {
      body: { name: 'mcp-data', size: 10, dataCenter: 'EU-RO-1' },
    });
    expect(created).toMatchObject({ name: 'mcp-data', size: 10, dataCenterId: 'EU-RO-1' });
    const listed = await mcp.ok<{ networkVolumes: NetworkVolumeView[] }>('list-network-volumes');
    expect(listed.networkVolumes.map((v) => v.id)).toEqual([created.id]);
    await mcp.ok('update-network-volume', { id: created.id, body: { size: 20 } });
    expect(await mcp.ok('get-network-volume', { id: created.id })).toMatchObject({ size: 20 });
    expect(await mcp.ok('delete-network-volume', { id: created.id })).toEqual({ status: 204 });
    expect((await rest('GET', `/v2/network-volumes/${created.id}`)).status).toBe(404);
  });

  it('pods: create from a template, list, get, stop, start, delete', async () => {
    const created = await mcp.ok<PodV2View>('create-pod', {
      body: { name: 'mcp-pod', templateId, gpu: { id: 'NVIDIA RTX A4000', count: 1 }, env: { RUN: 'mcp' } },
    });
    expect(created).toMatchObject({ name: 'mcp-pod', templateId, env: { EPOCHS: '3', RUN: 'mcp' } });
    const id = created.id;
    expect((await rest<PodV2List>('GET', '/v2/pods')).body.pods.map((p) => p.id)).toEqual([id]);
    expect((await mcp.ok<PodV2List>('list-pods')).pods.map((p) => p.id)).toEqual([id]);
    await until('RUNNING', async () => (await podStatus(id)) === 'RUNNING');
    expect(await mcp.ok('get-pod', { id })).toMatchObject({ status: 'RUNNING', actions: expect.any(Array) });
    await mcp.ok('pod-action', { id, body: { action: 'stop' } });
    await until('EXITED', async () => (await podStatus(id)) === 'EXITED');
    expect(await mcp.ok('pod-action', { id, body: { action: 'start' } })).toMatchObject({ id });
    await until('RUNNING again', async () => (await podStatus(id)) === 'RUNNING');
    const logs = await mcp.ok<{ items: unknown[]; truncated: boolean }>('stream-pod-logs', {
      podId: id,
      maxWaitMs: 500,
    });
    expect(logs).toMatchObject({ items: expect.any(Array), truncated: false });
    // As on RunPod, a change of env or image restarts the pod with them.
    const image = 'runpod/pytorch:2.8.0-py3.11-cuda12.8.1-cudnn-devel-ubuntu22.04';
    await mcp.ok('update-pod', { id, body: { env: { EPOCHS: '3', RUN: 'again' }, image } });
    await until('RUNNING after the update', async () => (await podStatus(id)) === 'RUNNING');
    expect(await mcp.ok('get-pod', { id })).toMatchObject({ image, env: { EPOCHS: '3', RUN: 'again' } });
    expect(await mcp.ok('delete-pod', { id })).toEqual({ status: 204 });
    expect((await rest<PodV2List>('GET', '/v2/pods')).body.pods).toEqual([]);
  });

  it('an endpoint from a catalog template: its jobs run on a worker the autoscaler starts', async () => {
    const created = await createEndpoint('mcp-echo', 1);
    endpointId = created.id;
    expect((await rest<EndpointV2View>('GET', `/v2/serverless/${endpointId}`)).body.templateId).toBe(
      'test-echo-worker',
    );
    const listed = await mcp.ok<{ items?: Json[]; endpoints?: Json[] }>('list-endpoints');
    expect(JSON.stringify(listed)).toContain(endpointId);
    const sync = await mcp.ok<Json>('runsync-endpoint', {
      endpointId,
      input: { hello: 'mcp' },
      wait: 45_000,
    });
    expect(sync).toMatchObject({ status: 'COMPLETED', output: { hello: 'mcp' } });
    const queued = await mcp.ok<{ id: string }>('run-endpoint', { endpointId, input: { n: 2 } });
    const done = await mcp.ok<Json>('get-job-status', { endpointId, jobId: queued.id, wait: 30_000 });
    expect(done).toMatchObject({ id: queued.id, status: 'COMPLETED', output: { n: 2 } });
    expect(await mcp.ok('stream-job', { endpointId, jobId: queued.id })).toMatchObject({
      status: 'COMPLETED',
    });
    const workers = await mcp.ok<{ workers: { id: string }[] }>('list-endpoint-workers', { id: endpointId });
    expect(workers.workers).toHaveLength(1);
    const workerLogs = await mcp.ok<{ items: unknown[] }>('stream-worker-logs', {
      endpointId,
      workerId: workers.workers[0].id,
      maxWaitMs: 500,
    });
    expect(workerLogs.items).toEqual(expect.any(Array));
    // /health's counts come from the metrics rollups, which trail the commits by the fold's lag (the relayed job
    // events and one fold, about a second; docs/adr/0022): the two completions show once they are folded.
    const health = () => mcp.ok<{ jobs: { completed: number } }>('endpoint-health', { endpointId });
    await until('both completions in /health', async () => (await health()).jobs.completed >= 2);
    expect((await health()).jobs.completed).toBe(2);
    // set-endpoint-gpus reads the endpoint, then PATCHes gpu with excludedTypes ([] when it pins nothing).
    expect(await mcp.ok('set-endpoint-gpus', { endpointId, pools: [pool, 'ADA_24'] })).toMatchObject({
      endpoint: { id: endpointId, gpuIds: `${pool},ADA_24`, gpuCount: 1 },
    });
    expect((await rest<EndpointV2View>('GET', `/v2/serverless/${endpointId}`)).body.gpu.pools).toEqual([
      pool,
      'ADA_24',
    ]);
    const pin = { endpointId, pools: [pool], excludeGpuTypeIds: ['NVIDIA RTX A4000'] };
    expect(await mcp.call('set-endpoint-gpus', pin)).toMatchObject({
      isError: true,
      payload: { status: 422 },
    });
    await mcp.ok('update-endpoint', { id: endpointId, body: { workers: { min: 0, max: 0 } } });
    expect(await mcp.ok('get-endpoint', { id: endpointId })).toMatchObject({ workers: { min: 0, max: 0 } });
  });

  it('jobs without a worker: cancel, purge, retry refused (409)', async () => {
    idleId = (await createEndpoint('mcp-idle', 0)).id;
    const jobs = await Promise.all(
      [1, 2, 3].map((n) => mcp.ok<{ id: string }>('run-endpoint', { endpointId: idleId, input: { n } })),
    );
    // A queued job's status carries the server's diagnosis, read from /v2/serverless/{id}/workers.
    expect(await mcp.ok('get-job-status', { endpointId: idleId, jobId: jobs[1].id })).toMatchObject({
      status: 'IN_QUEUE',
      workerHealth: { total: 0, unhealthy: 0 },
      hint: expect.stringMatching(/^No workers are scheduled/),
    });
    expect(await mcp.ok('cancel-job', { endpointId: idleId, jobId: jobs[0].id })).toEqual({
      id: jobs[0].id,
      status: 'CANCELLED',
    });
    expect(await mcp.ok('purge-endpoint-queue', { endpointId: idleId })).toEqual({
      removed: 2,
      status: 'completed',
    });
    const retry = await mcp.call<{ detail: { status: number } }>('retry-job', {
      endpointId: idleId,
      jobId: jobs[0].id,
    });
    expect(retry).toMatchObject({ isError: true, payload: { detail: { status: 409 } } });
    expect(await mcp.ok('get-job-status', { endpointId: idleId, jobId: jobs[0].id })).toMatchObject({
      status: 'CANCELLED',
    });
  });

  it('an endpoint from an image: its template is made for it', async () => {
    const created = await mcp.ok<EndpointV2View>('create-endpoint', {
      body: {
        name: 'mcp-image',
        type: 'QUEUE',
        image: 'gpucp/echo-worker',
        gpu: { pools: [pool] },
        workers: { min: 0, max: 0 },
        scaling: { type: 'QUEUE_DELAY', queueDelay: 1 },
      },
    });
    const template = await mcp.ok<TemplateV2View>('get-template', { id: created.templateId });
    expect(template).toMatchObject({ image: 'gpucp/echo-worker', serverless: true });
    expect(await mcp.ok('delete-endpoint', { id: created.id })).toEqual({ status: 204 });
  });

  it('clusters: create, list, get, rename, members, delete', async () => {
    const created = await mcp.ok<{ id: string }>('create-cluster', {
      body: {
        name: 'mcp-train',
        type: 'TRAINING',
        image: 'runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04',
        compute: { gpuTypeId: 'NVIDIA A100-SXM4-80GB', gpuCountPerPod: 1, podCount: 2 },
      },
    });
    const listed = await mcp.ok<unknown>('list-clusters');
    expect(JSON.stringify(listed)).toContain(created.id);
    await mcp.ok('update-cluster', { id: created.id, body: { name: 'mcp-train-2' } });
    const cluster = await mcp.ok<{ name: string; pods: { total: number } }>('get-cluster', {
      id: created.id,
    });
    expect(cluster).toMatchObject({ name: 'mcp-train-2', pods: { total: 2 } });
    const members = await mcp.ok<{ pods: PodV2View[] }>('list-cluster-pods', { id: created.id });
    expect(members.pods).toHaveLength(2);
    // The v2 pod shape on a v2 route: `image` and `gpu`, not v1's `imageName` and `gpuTypeId`.
    expect(members.pods[0]).toMatchObject({ image: expect.any(String), gpu: expect.anything() });
    expect(members.pods[0]).not.toHaveProperty('imageName');
    expect(await mcp.ok('delete-cluster', { id: created.id })).toEqual({ status: 204 });
  });

  it('billing: every view answers', async () => {
    const window = { lastN: 2, bucketSize: 'day' };
    for (const tool of [
      'list-billing',
      'list-pod-billing',
      'list-cluster-billing',
      'list-serverless-billing',
      'list-network-volume-billing',
      'list-endpoint-billing',
    ]) {
      expect((await mcp.call(tool, window)).isError).toBe(false);
    }
  });

  it('features a self-hosted deployment does not offer: one clear answer, not "no route"', async () => {
    const rest = [
      ['list-delegations', {}],
      ['create-delegation', { body: { resource: 'arn:aws:ecr:us-east-1:123456789012:repository/app' } }],
      ['revoke-delegation', { id: 'dlg-1' }],
      ['list-endpoint-releases', { id: endpointId }],
      ['list-endpoint-builds', { id: endpointId }],
      ['get-endpoint-build', { id: endpointId, buildId: 'b1' }],
    ] as const;
    for (const [tool, args] of rest) {
      const answer = await mcp.call<{ status: number; detail: string; hint: string }>(tool, args);
      expect({ tool, ...answer }).toMatchObject({
        tool,
        isError: true,
        payload: { status: 501, detail: expect.stringMatching(/not offered/) },
      });
    }
    const graphql = [
      ['list-hub-repos', {}],
      ['deploy-hub-repo', { repo: 'runpod-workers/worker-vllm' }],
      ['list-public-endpoints', {}],
    ] as const;
    for (const [tool, args] of graphql) {
      const answer = await mcp.call<{ error: string }>(tool, args);
      expect({ tool, ...answer }).toMatchObject({
        tool,
        isError: true,
        payload: { error: expect.stringMatching(/not offered/) },
      });
    }
  });

  it('deletes the endpoints and the template; never reached beyond loopback', async () => {
    for (const id of [endpointId, idleId]) {
      expect(await mcp.ok('delete-endpoint', { id })).toEqual({ status: 204 });
      expect((await rest('GET', `/v2/serverless/${id}`)).status).toBe(404);
    }
    expect(await mcp.ok('delete-template', { id: templateId })).toEqual({ status: 204 });
    expect(mcp.stderr()).toContain('tool_call');
    expect(mcp.stderr()).not.toContain(REFUSED_MARK);
  });

  it('called every tool the server serves', async () => {
    const uncalled = (await mcp.toolNames()).filter((name) => !mcp.called().has(name));
    expect(uncalled).toEqual([]);
  });
});
