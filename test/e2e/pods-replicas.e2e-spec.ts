import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PodStatus, type PodView } from '@app/contracts';
import { createKey, createUser } from '../support/accounts.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { client, readStream, until, waitForPod, type Call } from './pods.e2e-helpers.js';

/**
 * Two pod-lifecycle replicas with the simulated runtime (docs/adr/0018-partitioned-runtime.md): the pods are
 * split between them by partition, each pod driven by exactly one (so each run reports each status once), and a
 * replica killed with SIGKILL while its pods provision hands them to the other, which brings them all up.
 */
describe('pod-lifecycle with two replicas', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let alice: Call;

  beforeAll(async () => {
    db = await createTestDatabase('pods_replicas', {
      apps: ['gateway', 'cluster-scheduler', 'pod-lifecycle'],
    });
    system = await startApps({
      apps: ['gateway', 'cluster-scheduler', 'pod-lifecycle'],
      replicas: { 'pod-lifecycle': 2 },
      databaseUrl: db.url,
      appEnv: {
        'pod-lifecycle': {
          RUNTIME_DRIVER: 'simulated',
          SIM_PROVISION_MS: '300',
          SIM_START_MS: '300',
          LEADER_CHECK_MS: '300',
          LOG_LEVEL: 'info',
        },
      },
    });
    await createUser(db.url, 'alice', { exempt: true });
    alice = client(system, (await createKey(db.url, 'alice')).key);
  });

  afterAll(async () => {
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  });

  async function createPods(
    count: number,
    label: string,
    env: Record<string, string> = {},
  ): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const created = await alice<PodView>('POST', '/v1/pods', {
        name: `${label}-${i}`,
        imageName: 'runpod/base:0.6.2',
        gpuTypeId: 'NVIDIA RTX A4000',
        gpuCount: 1,
        env,
      });
      expect(created.status).toBe(201);
      ids.push(created.body.id);
    }
    return ids;
  }

  /** The observations recorded for these pods: `podId run status` → how many times it was reported. */
  async function observations(podIds: string[]): Promise<Map<string, number>> {
    const prefix = system.natsPrefix;
    const wanted = new Set(podIds);
    const counts = new Map<string, number>();
    for (const message of await readStream(`${prefix}_COMMANDS`, `${prefix}.pod.cmd.observe`)) {
      const { podId, generation, status } = (
        JSON.parse(message.data) as { payload: { podId: string; generation: number; status: string } }
      ).payload;
      if (!wanted.has(podId)) continue;
      const key = `${podId} ${generation} ${status}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return counts;
  }

  it('splits the partitions between the replicas and drives each pod once', async () => {
    await until('both replicas drive a share', () =>
      [0, 1].every((r) => /took partitions/.test(system.logs('pod-lifecycle', r))),
    );
    const podIds = await createPods(12, 'split');
    for (const podId of podIds) await waitForPod(alice, podId, PodStatus.Running);
    const counts = await observations(podIds);
    // Every pod reported STARTING and RUNNING for its run, and nothing twice: one driver per pod.
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    expect([...counts.keys()].filter((k) => k.endsWith(' RUNNING'))).toHaveLength(podIds.length);
  });

  it('hands a killed replica’s pods to the other, which brings every one of them up', async () => {
    // Long enough a provisioning that the victim dies holding pods it has not reported on yet.
    const podIds = await createPods(10, 'takeover', { SIM_PROVISION_MS: '2000' });
    await system.kill('pod-lifecycle', 'SIGKILL', 0);
    for (const podId of podIds) await waitForPod(alice, podId, PodStatus.Running, 30_000);
    expect(system.logs('pod-lifecycle', 1)).toMatch(/adopting \d+ live pod/);
    const counts = await observations(podIds);
    expect([...counts.entries()].filter(([, n]) => n > 1)).toEqual([]);

    // Back again, the restarted replica takes its share back; pods keep being driven once.
    await system.restart('pod-lifecycle', undefined, 0);
    await until('the survivor gives the restarted replica its share', () =>
      /gave back partitions/.test(system.logs('pod-lifecycle', 1)),
    );
    const more = await createPods(6, 'after');
    for (const podId of more) await waitForPod(alice, podId, PodStatus.Running);
    const after = await observations(more);
    expect([...after.entries()].filter(([, n]) => n > 1)).toEqual([]);
  });

  it('refuses a second replica of the local runtime, saying why', async () => {
    const localDb = await createTestDatabase('pods_local_single', { apps: ['pod-lifecycle'] });
    const dir = mkdtempSync(join(tmpdir(), 'pods-local-single-'));
    const env = { RUNTIME_DRIVER: 'local', LOCAL_PODS_DIR: dir };
    const first = await startApps({
      apps: ['pod-lifecycle'],
      databaseUrl: localDb.url,
      appEnv: { 'pod-lifecycle': env },
    });
    try {
      await expect(
        startApps({
          apps: ['pod-lifecycle'],
          databaseUrl: localDb.url,
          natsPrefix: first.natsPrefix,
          appEnv: { 'pod-lifecycle': env },
        }),
      ).rejects.toThrow(/RUNTIME_DRIVER=local runs pods as child processes of one pod-lifecycle process/);
    } finally {
      await first.stop();
      await deleteStreams(first.natsPrefix);
      await localDb.drop();
    }
  });
});
