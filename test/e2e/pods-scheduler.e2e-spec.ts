import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PodStatus, type PodV2List, type PodView } from '@app/contracts';
import { createKey, createUser } from '../support/accounts.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { client, expectProblem, getPod, until, waitForPod, type Call } from './pods.e2e-helpers.js';

const { Running, Exited, Starting, Terminated } = PodStatus;

interface Cluster {
  id: string;
  pods: { total: number; byStatus: Record<string, number> };
  primary?: { podId: string; status: string; sshEndpoint?: string };
}

/**
 * Pods with the real cluster-scheduler: standalone pods placed by it, resumed on their host, and cluster
 * members whose start, stop and reset move the cluster's `pods.byStatus` and `primary`.
 */
describe('pods with the scheduler', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let alice: Call;

  /** The cluster, its byStatus checked to add up to its total (RunPod: both describe the provisioned members). */
  const cluster = async (id: string) => {
    const view = (await alice<Cluster>('GET', `/v2/clusters/${id}`)).body;
    expect(Object.values(view.pods.byStatus).reduce((a, b) => a + b, 0)).toBe(view.pods.total);
    return view;
  };
  const clusterWhere = (id: string, what: string, test: (c: Cluster) => boolean) =>
    until(what, async () => {
      const c = await cluster(id);
      return test(c) ? c : null;
    });

  beforeAll(async () => {
    db = await createTestDatabase('pods_scheduler', {
      apps: ['gateway', 'cluster-scheduler', 'pod-lifecycle'],
    });
    system = await startApps({
      apps: ['gateway', 'cluster-scheduler', 'pod-lifecycle'],
      databaseUrl: db.url,
      appEnv: {
        'pod-lifecycle': { RUNTIME_DRIVER: 'simulated', SIM_PROVISION_MS: '150', SIM_START_MS: '150' },
      },
    });
    // Exempt from rate limits: the test polls the cluster until its summary follows.
    await createUser(db.url, 'alice', { exempt: true });
    alice = client(system, (await createKey(db.url, 'alice')).key);
  });

  afterAll(async () => {
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  });

  it('places a standalone pod, stops it (GPUs released) and resumes it on the same host', async () => {
    const created = await alice<PodView>('POST', '/v1/pods', {
      name: 'standalone',
      imageName: 'runpod/base:0.6.2',
      gpuTypeId: 'NVIDIA RTX A4000',
      gpuCount: 1,
      ports: ['22/tcp'],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      status: PodStatus.Provisioning,
      gpuTypeId: 'NVIDIA RTX A4000',
      gpuCount: 1,
    });
    expect(created.body.machineId).toEqual(expect.any(String));
    expect(created.body.dataCenterId).toEqual(expect.any(String));
    expect(created.body.portMappings['22']).toEqual(expect.any(Number));
    const host = created.body.machineId;
    await waitForPod(alice, created.body.id, Running);

    expect((await alice<PodView>('POST', `/v1/pods/${created.body.id}/stop`)).body.status).toBe(Exited);
    const started = await alice<PodView>('POST', `/v1/pods/${created.body.id}/start`);
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ status: Starting, machineId: host });
    await waitForPod(alice, created.body.id, Running);
    expect((await alice('DELETE', `/v1/pods/${created.body.id}`)).status).toBe(204);
  });

  it('an unknown GPU type is the scheduler’s validation error', async () => {
    const reply = await alice('POST', '/v1/pods', { name: 'x', imageName: 'x', gpuTypeId: 'NVIDIA NOPE' });
    expectProblem(reply, 422);
  });

  it("names the catalog's limits in the request's own fields: gpu.count on /v2, gpuCount on /v1", async () => {
    const gpu = 'NVIDIA RTX A4000';
    const errors = async (path: string, body: unknown) => {
      const reply = await alice<{ errors?: string[] }>('POST', path, body);
      expectProblem(reply, 422);
      return reply.body.errors;
    };
    expect(await errors('/v2/pods', { name: 'x', image: 'x', gpu: { id: gpu, count: 9 } })).toEqual([
      `gpu.count must not be greater than 8 for ${gpu}`,
    ]);
    expect(await errors('/v1/pods', { name: 'x', imageName: 'x', gpuTypeId: gpu, gpuCount: 9 })).toEqual([
      `gpuCount must not be greater than 8 for ${gpu}`,
    ]);
    expect(await errors('/v2/pods', { name: 'x', image: 'x', gpu: { id: 'NVIDIA NOPE' } })).toEqual([
      'gpu.id must be a GPU type id from GET /v2/catalog/gpus; "NVIDIA NOPE" is not one',
    ]);
    expect(
      await errors('/v2/pods', { name: 'x', image: 'x', cpu: { id: 'cpu-nope', vcpuCount: 2 } }),
    ).toEqual(['cpu.id must be a CPU type id from GET /v2/catalog/cpus; "cpu-nope" is not one']);
  });

  it('start, stop and reset of cluster members move the cluster’s byStatus and primary', async () => {
    const created = await alice<Cluster>('POST', '/v2/clusters', {
      name: 'trainers',
      type: 'TRAINING',
      compute: { gpuTypeId: 'NVIDIA RTX A4000', gpuCountPerPod: 1, podCount: 2 },
    });
    if (created.status !== 201) throw new Error(`cluster create answered ${created.status}: ${created.text}`);
    const id = created.body.id;
    const ready = await clusterWhere(id, 'both members RUNNING', (c) => c.pods.byStatus.RUNNING === 2);
    expect(ready.primary?.status).toBe(Running);
    const members = (await alice<PodV2List>('GET', `/v2/clusters/${id}/pods`)).body.pods;
    expect(members.map((p) => p.cluster?.rank)).toEqual([0, 1]);
    const primaryId = ready.primary!.podId;
    expect(members.map((p) => p.id)).toContain(primaryId);
    const other = members.find((p) => p.id !== primaryId)!;

    // stop the primary: byStatus and primary follow
    expect((await alice<PodView>('POST', `/v1/pods/${primaryId}/stop`)).body.status).toBe(Exited);
    const stopped = await clusterWhere(id, 'the primary EXITED', (c) => c.primary?.status === Exited);
    expect(stopped.pods.byStatus).toEqual({ EXITED: 1, RUNNING: 1 });

    // start it again (its GPUs were released; reserved again on the same host)
    const started = await alice<PodView>('POST', `/v1/pods/${primaryId}/start`);
    expect(started.status).toBe(200);
    expect(started.body.machineId).toBe(members.find((p) => p.id === primaryId)!.machineId);
    await clusterWhere(
      id,
      'the primary RUNNING again',
      (c) => c.primary?.status === Running && c.pods.byStatus.RUNNING === 2,
    );

    // reset the other member: STARTING then RUNNING in the summary
    expect((await alice<PodView>('POST', `/v1/pods/${other.id}/reset`)).body.status).toBe(Starting);
    await waitForPod(alice, other.id, Running);
    await clusterWhere(id, 'both RUNNING after the reset', (c) => c.pods.byStatus.RUNNING === 2);

    // a member's own terminate is refused on /v1 as on /v2: the cluster keeps counting two, adding up
    expectProblem(await alice('DELETE', `/v1/pods/${other.id}`), 409, /delete the cluster instead/);
    expectProblem(await alice('DELETE', `/v2/pods/${other.id}`), 409, /delete the cluster instead/);
    expect((await cluster(id)).pods).toEqual({ total: 2, byStatus: { RUNNING: 2 } });

    // deleting the cluster terminates the members
    expect((await alice('DELETE', `/v2/clusters/${id}`)).status).toBe(204);
    for (const member of members) await waitForPod(alice, member.id, Terminated);
    expect((await getPod(alice, primaryId)).status).toBe(Terminated);
  });
});
