import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ClusterView, GpuTypeView, PodV2List, PodV2View } from '@app/contracts';
import { closeBus } from '../support/bus.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import {
  A100,
  api,
  createUserWithKey,
  eventually,
  registryAuthKeys,
  sshPublicKey,
  writeFleet,
} from './clusters-fixtures.js';

/**
 * End to end with pod-lifecycle and its simulated runtime: the scheduler's `cluster.evt.created` becomes member
 * pods that reach RUNNING, their status events drive the cluster's summary and sshEndpoint, and a delete
 * terminates them and gives every GPU back.
 */
let db: TestDatabase;
let system: RunningSystem;
let gateway: string;
let key: string;

const FLEET = writeFleet(
  [1, 2, 3].map((n) => ({ id: `ro-${n}`, dataCenterId: 'EU-RO-1', gpuTypeId: A100, gpuCount: 8 })),
);

beforeAll(async () => {
  db = await createTestDatabase('clusters_pods');
  system = await startApps({
    apps: ['gateway', 'cluster-scheduler', 'pod-lifecycle'],
    databaseUrl: db.url,
    appEnv: {
      gateway: { REGISTRY_AUTH_KEYS: registryAuthKeys() },
      'cluster-scheduler': { FLEET_FILE: FLEET },
      'pod-lifecycle': { RUNTIME_DRIVER: 'simulated', SIM_PROVISION_MS: '200', SIM_START_MS: '200' },
    },
  });
  gateway = system.url('gateway');
  key = (await createUserWithKey(db.url, 'dana')).key;
});

afterAll(async () => {
  await system?.stop();
  if (system) await deleteStreams(system.natsPrefix);
  await closeBus();
  await db?.drop();
});

async function freeA100(): Promise<number> {
  const gpus = await api<GpuTypeView[]>(gateway, key, 'GET', '/v2/catalog/gpus');
  return gpus.body.find((g) => g.id === A100)!.availability.freeGpus;
}

describe('a cluster with pod-lifecycle running its members', () => {
  it('reaches RUNNING with an SSH endpoint, and gives everything back on delete', async () => {
    expect((await api(gateway, key, 'POST', '/v1/user/ssh-keys', { publicKey: sshPublicKey() })).status).toBe(
      201,
    );
    expect(await freeA100()).toBe(24);
    const created = await api<ClusterView>(gateway, key, 'POST', '/v2/clusters', {
      name: 'slurm',
      type: 'SLURM',
      compute: { gpuTypeId: A100, gpuCountPerPod: 4, podCount: 4 },
      startSsh: true,
    });
    expect(created.status).toBe(201);
    const cluster = created.body;
    expect(await freeA100()).toBe(8);

    const running = await eventually(
      async () => {
        const view = (await api<ClusterView>(gateway, key, 'GET', `/v2/clusters/${cluster.id}`)).body;
        return view.pods.byStatus.RUNNING === 4 && view.primary?.sshEndpoint ? view : undefined;
      },
      30_000,
      'four RUNNING members and an SSH endpoint',
    );
    expect(running.pods).toEqual({ total: 4, byStatus: { RUNNING: 4 } });
    expect(running.primary!.sshEndpoint).toMatch(/^203\.0\.113\.\d+:\d+$/);

    const listed = await api<PodV2List>(gateway, key, 'GET', `/v2/clusters/${cluster.id}/pods`);
    // RunPod's ListPodsResponse of v2 pods, as GET /v2/pods answers.
    const { pods } = listed.body;
    expect(pods.map((p) => [p.cluster?.rank, p.cluster?.role, p.status])).toEqual([
      [0, 'controller', 'RUNNING'],
      [1, 'compute', 'RUNNING'],
      [2, 'compute', 'RUNNING'],
      [3, 'compute', 'RUNNING'],
    ]);
    expect(pods[0].desiredStatus).toBe('RUNNING');
    expect(pods[0]).toMatchObject({ gpu: { id: A100, count: 4 }, actions: ['stop', 'restart'] });
    expect(pods[0]).not.toHaveProperty('clusterRank');
    expect(pods[0]).toEqual((await api<PodV2View>(gateway, key, 'GET', `/v2/pods/${pods[0].id}`)).body);
    expect(`${pods[0].publicIp}:${pods[0].portMappings['22']}`).toBe(running.primary!.sshEndpoint);

    expect((await api(gateway, key, 'DELETE', `/v2/clusters/${cluster.id}`)).status).toBe(204);
    await eventually(async () => ((await freeA100()) === 24 ? true : undefined), 30_000, 'the GPUs back');
    const again = await api<ClusterView>(gateway, key, 'POST', '/v2/clusters', {
      name: 'again',
      type: 'TRAINING',
      compute: { gpuTypeId: A100, gpuCountPerPod: 8, podCount: 3 },
    });
    expect(again.status).toBe(201);
    expect(again.body.network).toEqual(cluster.network);
  });
});
