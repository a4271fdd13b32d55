import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { Subjects, type HostView } from '@app/contracts';
import { SMALL_FLEET, SchedulerCommands } from '../../../../../test/support/cluster-scheduler-commands.js';
import { FakeKubeApi } from '../../../../../test/support/fake-kube-api.js';
import { InProcessCommands } from '../../../../../test/support/handler-harness.js';
import { busFleetPort } from '../kube-node-watch.service.js';
import { KubernetesNodeWatch } from './kubernetes-node-watch.js';
import { kubernetesNodes } from './kubernetes-nodes.js';

/**
 * The node watch end to end: the fake Kubernetes API's nodes, the watch, and the scheduler's real fleet handlers
 * (test/support/cluster-scheduler-commands.ts) over its schema (SMALL_FLEET's catalog: L4 and RTX 4090, data centers US-TX-3 and EU-RO-1), its commands and
 * queries on an in-process bus. Nodes added, cordoned, NotReady, with GPUs withdrawn, deleted; a watch dropped and a
 * watcher restarted while nodes changed.
 */
let scheduler: SchedulerCommands;
let api: FakeKubeApi;
let watch: KubernetesNodeWatch;

beforeAll(async () => {
  scheduler = await SchedulerCommands.start('kube_node_watch', { fleet: SMALL_FLEET });
});

afterAll(async () => {
  await scheduler?.stop();
});

afterEach(async () => {
  await watch?.stop();
  await api?.stop();
});

async function startWatch(): Promise<void> {
  const commands = new InProcessCommands(scheduler.harness);
  // The fleet's queries from the scheduler's handlers; the GPU types are the catalog it loaded (SMALL_FLEET's).
  const queries = {
    query: (subject: string, payload: unknown, actor: unknown) =>
      subject === Subjects.catalog.gpuTypes
        ? Promise.resolve(SMALL_FLEET.gpuTypes)
        : scheduler.harness.query(subject as never, payload, { actor: actor as never }),
  };
  watch = new KubernetesNodeWatch(
    kubernetesNodes(api.kubeConfig()),
    busFleetPort(commands, queries as never, 1000),
    {
      dataCenterLabel: 'topology.kubernetes.io/zone',
      unhealthyConditions: ['SysLogsXIDError', 'GpuMemWatch'],
      unhealthyLabels: [],
      productMap: { 'NVIDIA-GeForce-RTX-4090': 'NVIDIA RTX 4090' },
      retryMs: 100,
      log: () => undefined,
    },
  );
  watch.start();
  await until(() => Promise.resolve(api.nodes.openWatches > 0), 'the watch');
}

const host = async (hostId: string): Promise<HostView | null> =>
  scheduler.harness.query(Subjects.fleet.getHost, { hostId }).then(
    (view) => view,
    () => null,
  );

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const stateOf = async (hostId: string) => (await host(hostId))?.state;
const becomes = (hostId: string, state: string) =>
  until(async () => (await stateOf(hostId)) === state, `${hostId} ${state}`);

describe('hosts from Kubernetes nodes, with the real scheduler', () => {
  it('registers nodes READY, then follows cordon, NotReady, unhealthy GPUs and deletion', async () => {
    api = new FakeKubeApi('gpucp-pods');
    await api.start();
    const a = { name: 'gpu-a', gpus: 4, product: 'NVIDIA-L4', zone: 'US-TX-3' };
    const b = {
      name: 'gpu-b',
      gpus: 8,
      product: 'NVIDIA-GeForce-RTX-4090',
      zone: 'EU-RO-1',
      externalIp: '203.0.113.20',
    };
    api.nodes.put(a);
    api.nodes.put(b);
    await startWatch();
    await becomes('gpu-b', 'READY');
    expect(await host('gpu-a')).toMatchObject({
      state: 'READY',
      source: 'kubernetes',
      gpuTypeId: 'NVIDIA L4',
      gpuCount: 4,
      dataCenterId: 'US-TX-3',
      publicIp: '203.0.113.1',
    });
    expect(await host('gpu-b')).toMatchObject({
      gpuTypeId: 'NVIDIA RTX 4090',
      gpuCount: 8,
      dataCenterId: 'EU-RO-1',
    });

    api.nodes.put({ ...a, unschedulable: true });
    await becomes('gpu-a', 'CORDONED');
    expect((await host('gpu-a'))?.scheduling).toMatchObject({ state: 'CORDONED', by: 'kubernetes' });
    api.nodes.put(a);
    await becomes('gpu-a', 'READY');

    api.nodes.put({ ...b, ready: 'Unknown' });
    await becomes('gpu-b', 'UNHEALTHY');
    expect((await host('gpu-b'))?.health).toMatchObject({
      healthy: false,
      code: 'NODE_NOT_READY',
      source: 'runtime',
    });
    api.nodes.put(b);
    await becomes('gpu-b', 'READY');

    api.nodes.put({ ...a, allocatable: 3 });
    await becomes('gpu-a', 'UNHEALTHY');
    expect((await host('gpu-a'))?.health).toMatchObject({
      code: 'GPU_UNHEALTHY',
      reason: expect.stringMatching(/^1 of 4 GPUs/) as unknown as string,
    });
    api.nodes.put({
      ...a,
      conditions: [
        { type: 'SysLogsXIDError', status: 'True', message: 'Xid 79: GPU has fallen off the bus' },
      ],
    });
    await until(async () => (await host('gpu-a'))?.health.code === 'XID', 'gpu-a XID');

    api.nodes.delete('gpu-b');
    await becomes('gpu-b', 'GONE');
    // An operator's cordon is the operator's: a schedulable node does not lift it.
    await scheduler.harness.send(Subjects.fleet.cordon, { hostId: 'gpu-a', reason: 'maintenance' });
    api.nodes.put(a);
    await until(async () => (await host('gpu-a'))?.health.healthy === true, 'gpu-a healthy');
    expect((await host('gpu-a'))?.scheduling).toMatchObject({ state: 'CORDONED', by: 'operator' });
    await scheduler.harness.send(Subjects.fleet.uncordon, { hostId: 'gpu-a' });
  });

  it('converges after a dropped watch, and after a restart behind the nodes', async () => {
    api = new FakeKubeApi('gpucp-pods');
    await api.start();
    const c = { name: 'gpu-c', gpus: 2, product: 'NVIDIA-L4', zone: 'EU-RO-1' };
    api.nodes.put(c);
    // gpu-a of the test before has no node here: the first list removes its host.
    await startWatch();
    await becomes('gpu-c', 'READY');
    await becomes('gpu-a', 'GONE');

    api.nodes.dropWatches();
    api.nodes.put({ ...c, unschedulable: true });
    api.nodes.put({ name: 'gpu-d', gpus: 8, product: 'NVIDIA-L4', zone: 'US-TX-3' });
    await becomes('gpu-c', 'CORDONED');
    await becomes('gpu-d', 'READY');

    // The watcher is stopped (its replica died) while nodes change; the next one lists and converges.
    await watch.stop();
    api.nodes.put(c);
    api.nodes.put({
      name: 'gpu-d',
      gpus: 8,
      product: 'NVIDIA-L4',
      zone: 'US-TX-3',
      conditions: [{ type: 'GpuMemWatch', status: 'True', message: 'DBE on GPU 2' }],
    });
    api.nodes.put({ name: 'gpu-e', gpus: 4, product: 'NVIDIA-GeForce-RTX-4090', zone: 'US-TX-3' });
    api.nodes.compact();
    await startWatch();
    await becomes('gpu-c', 'READY');
    await becomes('gpu-d', 'UNHEALTHY');
    expect((await host('gpu-d'))?.health).toMatchObject({
      code: 'ECC',
      reason: 'GpuMemWatch on node gpu-d: DBE on GPU 2',
    });
    await becomes('gpu-e', 'READY');
    const kube = await scheduler.harness.query(Subjects.fleet.listHosts, { source: 'kubernetes' });
    expect(kube.hosts.map((h) => `${h.id} ${h.state}`).sort()).toEqual([
      'gpu-a GONE',
      'gpu-b GONE',
      'gpu-c READY',
      'gpu-d UNHEALTHY',
      'gpu-e READY',
    ]);
  });
});
