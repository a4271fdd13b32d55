import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  PodStatus,
  type AuditPage,
  type EndpointHealth,
  type EndpointV2View,
  type JobAccepted,
  type JobView,
  type PodV2View,
  type QuotaView,
} from '@app/contracts';
import { keysCli, type TestKey } from '../support/accounts.js';
import type { RunningSystem } from '../support/system.js';
import type { TestDatabase } from '../support/test-database.js';
import { A100, writeFleet } from './clusters-fixtures.js';
import { client, expectProblem, until, waitForPod, type Call } from './pods.e2e-helpers.js';
import { startServerlessSystem, stopServerlessSystem } from './serverless-system.e2e-helpers.js';

/**
 * Admission against quotas and preemption end to end (docs/adr/0037-quotas-and-preemption.md), all five apps on the
 * simulated runtime and a fleet of one 8-GPU host: the operator's default quota (alice has none of her own) refuses
 * what goes over it on REST v2, REST v1 and GraphQL alike, each naming the type, the limit, the use and the ask; a
 * high-priority pod preempts alice's own normal one (an ask of the same priority never does), which goes EXITED with reason PREEMPTED, entered in her
 * trail; a serverless endpoint whose worker the quota refuses waits, and its /health says why.
 */
const FLEET = writeFleet([{ id: 'ro-a100-1', dataCenterId: 'EU-RO-1', gpuTypeId: A100, gpuCount: 8 }]);
const OVER =
  /would exceed the operator's default GPU quota for NVIDIA A100 80GB PCIe: limit 4 GPUs, 4 in use, 1 asked/;

describe('quota admission and preemption', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let alice: Call;
  let aliceKey: string;
  let operator: Call;
  let templateId: string;
  let normal: PodV2View;
  let high: PodV2View;

  const podBody = (name: string, count: number, priority?: string) => ({
    name,
    image: 'runpod/base:0.6.2',
    gpu: { id: A100, count },
    disk: 10,
    ...(priority ? { priority } : {}),
  });
  const graphql = async (query: string) => {
    const response = await fetch(`${system.url('gateway')}/graphql?api_key=${aliceKey}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    return (await response.json()) as { errors?: { message: string; extensions: { code: string } }[] };
  };

  beforeAll(async () => {
    let template;
    ({ db, system, alice, aliceKey, template } = await startServerlessSystem('quota_admission', {
      'cluster-scheduler': { FLEET_FILE: FLEET },
      'pod-lifecycle': { RUNTIME_DRIVER: 'simulated', SIM_PROVISION_MS: '100', SIM_START_MS: '100' },
      'endpoint-autoscaler': { AUTOSCALER_TICK_MS: '200' },
    }));
    templateId = template.id;
    await keysCli(db.url, ['user', 'create', 'ops'], system.natsPrefix);
    const ops = JSON.parse(
      await keysCli(db.url, ['key', 'create', 'ops', '--scope', 'operator', '--json'], system.natsPrefix),
    ) as TestKey;
    operator = client(system, ops.key);
    const set = await operator<QuotaView>('PUT', '/v2/quotas/default', {
      limits: [{ gpuTypeId: A100, gpus: 4 }],
    });
    expect(set.status).toBe(200);
  });

  afterAll(() => stopServerlessSystem({ db, system }));

  it('refuses what goes over the quota on REST v2, REST v1 and GraphQL, naming the numbers', async () => {
    const created = await alice<PodV2View>('POST', '/v2/pods', podBody('normal', 4));
    expect(created.status).toBe(201);
    normal = created.body;
    await waitForPod(alice, normal.id, PodStatus.Running);

    expectProblem(await alice('POST', '/v2/pods', podBody('over-v2', 1)), 409, OVER);
    const v1 = await alice<{ message: string }>('POST', '/v1/pods', {
      name: 'over-v1',
      imageName: 'runpod/base:0.6.2',
      gpuTypeId: A100,
      gpuCount: 1,
    });
    expectProblem(v1, 409, OVER);
    const gql = await graphql(
      `mutation { podFindAndDeployOnDemand(input: { name: "over-gql", imageName: "runpod/base:0.6.2", cloudType: ALL, gpuTypeId: "${A100}", gpuCount: 1, volumeInGb: 0, containerDiskInGb: 10 }) { id } }`,
    );
    expect(gql.errors?.[0]).toMatchObject({ extensions: { code: 'QUOTA_EXCEEDED' } });
    expect(gql.errors?.[0].message).toMatch(OVER);
    const quota = await alice<QuotaView>('GET', '/v2/account/quota');
    expect(quota.body).toMatchObject({ source: 'default', limits: [{ gpus: 4, inUse: 4, borrowed: 0 }] });
  });

  it("preempts the account's own lower-priority pod for a high-priority one, and says so", async () => {
    const created = await alice<PodV2View>('POST', '/v2/pods', podBody('high', 4, 'high'));
    expect(created.status).toBe(201);
    high = created.body;
    await waitForPod(alice, high.id, PodStatus.Running);
    const preempted = await waitForPod(alice, normal.id, PodStatus.Exited);
    expect(preempted.desiredStatus).toBe(PodStatus.Exited);
    expect(preempted.statusReason).toMatch(/^PREEMPTED: by .* for .* \(high, priority\)$/);
    expect((await alice<PodV2View>('GET', `/v2/pods/${normal.id}`)).body.reason).toEqual({
      code: 'PREEMPTED',
      message: expect.stringMatching(/^by .* for .* \(high, priority\)$/),
      since: preempted.lastStatusChange,
    });
    const trail = await until('the preemption in the trail', async () => {
      const page = await alice<AuditPage>('GET', '/v2/audit?action=placement.preempted');
      return page.body.entries.length ? page.body.entries : undefined;
    });
    expect(trail[0]).toMatchObject({
      resourceId: normal.id,
      details: { preemptorWorkloadId: high.id, reason: 'priority' },
    });
    // Starting the preempted pod again is a resume like any other: over the quota now, refused.
    expectProblem(
      await alice('POST', `/v2/pods/${normal.id}/action`, { action: 'start' }),
      409,
      /limit 4 GPUs, 4 in use, 4 asked/,
    );
  });

  it("leaves an endpoint's jobs waiting while its worker is over the quota, and /health says why", async () => {
    const endpoint = await alice<EndpointV2View>('POST', '/v2/serverless', {
      name: 'over-quota',
      type: 'QUEUE',
      templateId,
      gpu: { pools: ['AMPERE_80'], count: 1 },
      workers: { min: 0, max: 1 },
    });
    expect(endpoint.status).toBe(201);
    const run = await alice<JobAccepted>('POST', `/v2/${endpoint.body.id}/run`, { input: {} });
    expect(run.status).toBe(200);
    const jobId = run.body.id;
    const health = await until('the reason in /health', async () => {
      const reply = await alice<EndpointHealth>('GET', `/v2/${endpoint.body.id}/health`);
      return reply.body.throttled ? reply.body : undefined;
    });
    expect(health).toMatchObject({ jobs: { inQueue: 1 }, workers: { running: 0 } });
    expect(health.throttled).toMatchObject({
      code: 'QUOTA_EXCEEDED',
      message: expect.stringMatching(/quota/),
    });

    // The same reason, machine-readable, on /health and on the job that waits; its since holds while it does.
    const reason = await until('the wait reason', async () => {
      const reply = await alice<EndpointHealth>('GET', `/v2/${endpoint.body.id}/health`);
      return reply.body.waitReason ?? undefined;
    });
    expect(reason).toMatchObject({ code: 'QUOTA_EXCEEDED', message: expect.stringMatching(/quota/) });
    const job = await until('the job to say why it waits', async () => {
      const status = await alice<JobView>('GET', `/v2/${endpoint.body.id}/status/${jobId}`);
      return status.body.reason ? status.body : undefined;
    });
    expect(job).toMatchObject({
      id: jobId,
      status: 'IN_QUEUE',
      reason: { code: 'QUOTA_EXCEEDED', since: reason.since },
    });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(
      (await alice<EndpointHealth>('GET', `/v2/${endpoint.body.id}/health`)).body.waitReason,
    ).toMatchObject({
      code: 'QUOTA_EXCEEDED',
      since: reason.since,
    });

    // The quota allows it: the worker is created and the job's reason moves on from the quota.
    expect(
      (await operator('PUT', '/v2/quotas/default', { limits: [{ gpuTypeId: A100, gpus: 8 }] })).status,
    ).toBe(200);
    const after = await until('the quota reason to clear', async () => {
      const status = await alice<JobView>('GET', `/v2/${endpoint.body.id}/status/${jobId}`);
      return status.body.reason?.code !== 'QUOTA_EXCEEDED' ? status.body : undefined;
    });
    expect(after).toMatchObject({ status: 'IN_QUEUE', reason: { code: 'WORKER_STARTING' } });
  });
});
