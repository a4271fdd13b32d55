import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  PodStatus,
  type EndpointHealth,
  type EndpointV2View,
  type PodV2View,
  type SpendStatus,
} from '@app/contracts';
import { keysCli } from '../support/accounts.js';
import type { RunningSystem } from '../support/system.js';
import type { TestDatabase } from '../support/test-database.js';
import { A100, writeFleet } from './clusters-fixtures.js';
import { expectProblem, until, waitForPod, type Call } from './pods.e2e-helpers.js';
import { startServerlessSystem, stopServerlessSystem } from './serverless-system.e2e-helpers.js';

/**
 * Monthly spend limits end to end (docs/adr/0023-spend-limits.md), all five apps on the simulated runtime: the
 * operator caps alice with the keys CLI, alice sets a lower limit of her own; under it a pod is created, once
 * this month's spend reaches it new GPU work is refused with 402 on REST v2, REST v1 and GraphQL alike (and by
 * the scheduler and the autoscaler for clusters and workersMin, the endpoint's /health saying why it waits), while
 * the running pod keeps running.
 */
const FLEET = writeFleet([{ id: 'ro-a100-1', dataCenterId: 'EU-RO-1', gpuTypeId: A100, gpuCount: 8 }]);
const LIMIT_DETAIL =
  /refused: the monthly spend limit is reached \(your own limit 0\.0001; spent 0\.\d+ in \d{4}-\d{2}/;

describe('spend limits', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let alice: Call;
  let aliceKey: string;
  let bob: Call;
  let reader: Call;
  let templateId: string;
  let running: PodV2View;

  const spend = (args: string[]) => keysCli(db.url, ['spend', ...args, '--json'], system.natsPrefix);
  const podBody = (name: string) => ({
    name,
    image: 'runpod/base:0.6.2',
    gpu: { id: A100, count: 1 },
    disk: 10,
  });
  const status = async () => {
    const reply = await alice<SpendStatus>('GET', '/v2/account/spend-limit');
    expect(reply.status).toBe(200);
    return reply.body;
  };
  const graphql = async (query: string) => {
    const response = await fetch(`${system.url('gateway')}/graphql?api_key=${aliceKey}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    return {
      status: response.status,
      body: (await response.json()) as {
        data?: unknown;
        errors?: { message: string; extensions: { code: string } }[];
      },
    };
  };

  beforeAll(async () => {
    let template;
    ({ db, system, alice, aliceKey, bob, reader, template } = await startServerlessSystem('spend_limits', {
      'cluster-scheduler': { FLEET_FILE: FLEET },
      'pod-lifecycle': { RUNTIME_DRIVER: 'simulated', SIM_PROVISION_MS: '100', SIM_START_MS: '100' },
      'endpoint-autoscaler': { AUTOSCALER_TICK_MS: '200' },
    }));
    templateId = template.id;
  });

  afterAll(() => stopServerlessSystem({ db, system }));

  it('the operator caps a user with the keys CLI; the user reads it and may set a lower limit, not a higher one', async () => {
    const none = JSON.parse(await spend(['show', 'alice'])) as SpendStatus;
    expect(none).toMatchObject({ operatorLimit: null, userLimit: null, monthlyLimit: null, reached: false });
    const capped = JSON.parse(await spend(['set', 'alice', '--monthly', '50'])) as SpendStatus;
    expect(capped).toMatchObject({ operatorLimit: 50, userLimit: null, monthlyLimit: 50, reached: false });
    expect(await status()).toMatchObject({ operatorLimit: 50, monthlyLimit: 50, spend: 0 });

    const above = await alice('PUT', '/v2/account/spend-limit', { monthlyLimit: 60 });
    expectProblem(above, 422);
    expect((above.body as { errors: string[] }).errors[0]).toMatch(/above the operator's cap of 50/);
    expect((await reader('PUT', '/v2/account/spend-limit', { monthlyLimit: 5 })).status).toBe(403);
    expect((await reader('GET', '/v2/account/spend-limit')).status).toBe(200);
    expectProblem(await alice('PUT', '/v2/account/spend-limit', { monthlyLimit: -1 }), 422);
  });

  it('under the limit, GPU work is accepted', async () => {
    const created = await alice<PodV2View>('POST', '/v2/pods', podBody('under-the-limit'));
    expect(created.status).toBe(201);
    running = created.body;
    await waitForPod(alice, running.id, PodStatus.Running);
    // It accrues from its create: A100 at 1.00 an hour plus its disk.
    const accrued = await until('some spend', async () =>
      (await status()).spend >= 0.0002 ? true : undefined,
    );
    expect(accrued).toBe(true);
  });

  it('once the spend reaches the limit, a new pod is refused with 402 on REST v2, v1 and GraphQL', async () => {
    const own = await alice<SpendStatus>('PUT', '/v2/account/spend-limit', { monthlyLimit: 0.0001 });
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({
      operatorLimit: 50,
      userLimit: 0.0001,
      monthlyLimit: 0.0001,
      reached: true,
    });
    expect(own.body.spend).toBeGreaterThanOrEqual(0.0001);

    expectProblem(await alice('POST', '/v2/pods', podBody('over-v2')), 402, LIMIT_DETAIL);
    const v1 = await alice<{ message: string; status: number }>('POST', '/v1/pods', {
      name: 'over-v1',
      imageName: 'runpod/base:0.6.2',
      gpuTypeId: A100,
      gpuCount: 1,
    });
    expectProblem(v1, 402, LIMIT_DETAIL);
    expect(v1.body.message).toMatch(LIMIT_DETAIL);

    const gql = await graphql(
      `mutation { podFindAndDeployOnDemand(input: { name: "over-gql", imageName: "runpod/base:0.6.2", cloudType: ALL, gpuTypeId: "${A100}", gpuCount: 1, volumeInGb: 0, containerDiskInGb: 10 }) { id } }`,
    );
    expect(gql.status).toBe(200);
    expect(gql.body.errors?.[0]).toMatchObject({ extensions: { code: 'SPEND_LIMIT_REACHED' } });
    expect(gql.body.errors?.[0].message).toMatch(LIMIT_DETAIL);

    // No pod was made by any of them; the one running keeps running (running work is not stopped).
    const pods = (await alice<{ pods: PodV2View[] }>('GET', '/v2/pods')).body.pods;
    expect(pods.map((p) => p.name)).toEqual(['under-the-limit']);
    expect(pods[0].status).toBe(PodStatus.Running);
  });

  it('refuses the other GPU work too: a cluster, workersMin above 0, and starting a stopped pod', async () => {
    const cluster = await alice('POST', '/v2/clusters', {
      name: 'over-cluster',
      type: 'TRAINING',
      compute: { gpuTypeId: A100, gpuCountPerPod: 1, podCount: 2 },
    });
    expectProblem(cluster, 402, LIMIT_DETAIL);
    // The spend question is asked while the placement runs: its refusal still comes first (not the fleet's lack of
    // room for 250 pods of 8 GPUs), and the refused creates leave nothing behind.
    const tooLarge = await alice('POST', '/v2/clusters', {
      name: 'over-and-too-large',
      type: 'TRAINING',
      compute: { gpuTypeId: A100, gpuCountPerPod: 8, podCount: 250 },
    });
    expectProblem(tooLarge, 402, LIMIT_DETAIL);
    // The same create by a user without a limit: the fleet has no room for it.
    const tooLargeForBob = await bob('POST', '/v2/clusters', {
      name: 'too-large',
      type: 'TRAINING',
      compute: { gpuTypeId: A100, gpuCountPerPod: 8, podCount: 250 },
    });
    expectProblem(tooLargeForBob, 409, /no capacity for 250 pods/);
    expect((await alice<unknown>('GET', '/v2/clusters')).body).toEqual({ clusters: [] });

    const endpoint = {
      name: 'over-endpoint',
      type: 'QUEUE',
      templateId,
      gpu: { pools: ['AMPERE_80'], count: 1 },
      workers: { min: 1, max: 2 },
    };
    expectProblem(await alice('POST', '/v2/serverless', endpoint), 402, /raising workersMin to 1 refused/);
    // workersMin 0 asks for nothing yet: accepted (the autoscaler then meets the limit when it creates workers).
    const idle = await alice<EndpointV2View>('POST', '/v2/serverless', {
      ...endpoint,
      workers: { min: 0, max: 1 },
    });
    expect(idle.status).toBe(201);
    expectProblem(
      await alice('PATCH', `/v2/serverless/${idle.body.id}`, { workers: { min: 1, max: 1 } }),
      402,
      LIMIT_DETAIL,
    );
    // A job queued there: the autoscaler's create of a worker is refused, and /health says why it waits.
    expect((await alice('POST', `/v2/${idle.body.id}/run`, { input: {} })).status).toBe(200);
    const health = await until('the reason in /health', async () => {
      const reply = await alice<EndpointHealth>('GET', `/v2/${idle.body.id}/health`);
      return reply.body.throttled ? reply.body : undefined;
    });
    expect(health).toMatchObject({ jobs: { inQueue: 1 }, workers: { idle: 0, running: 0 } });
    expect(health.throttled).toEqual({
      code: 'SPEND_LIMIT_REACHED',
      message: expect.stringMatching(/^worker not created: .*monthly spend limit is reached/),
      since: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });

    expect((await alice('POST', `/v2/pods/${running.id}/action`, { action: 'stop' })).status).toBe(200);
    expectProblem(
      await alice('POST', `/v2/pods/${running.id}/action`, { action: 'start' }),
      402,
      LIMIT_DETAIL,
    );
    const mutation = `mutation { podResume(input: { podId: "${running.id}", gpuCount: 1 }) { id } }`;
    expect((await graphql(mutation)).body.errors?.[0].extensions.code).toBe('SPEND_LIMIT_REACHED');
  });

  it('another user is not limited, and raising the limit lets the user start work again', async () => {
    const bobs = await bob<PodV2View>('POST', '/v2/pods', podBody('bob-unlimited'));
    expect(bobs.status).toBe(201);

    const cleared = await alice<SpendStatus>('PUT', '/v2/account/spend-limit', { monthlyLimit: null });
    expect(cleared.body).toMatchObject({ userLimit: null, monthlyLimit: 50, reached: false });
    expect((await alice('POST', `/v2/pods/${running.id}/action`, { action: 'start' })).status).toBe(200);

    const cleared2 = JSON.parse(await spend(['clear', 'alice'])) as SpendStatus;
    expect(cleared2).toMatchObject({ operatorLimit: null, monthlyLimit: null, reached: false });
    expect(cleared2.spend).toBeGreaterThan(0);
  });
});
