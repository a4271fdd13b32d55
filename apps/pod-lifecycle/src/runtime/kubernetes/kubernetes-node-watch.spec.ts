import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { DomainError, ErrorCode, Subjects, type HostView } from '@app/contracts';
import { FakeKubeApi } from '../../../../../test/support/fake-kube-api.js';
import { afterStep, type AppliedHost, type NodeStep } from './kubernetes-node-plan.js';
import { KubernetesNodeWatch, type FleetPort } from './kubernetes-node-watch.js';
import { kubernetesNodes } from './kubernetes-nodes.js';

/**
 * The scheduler's fleet as the node watch sees it, kept in memory: each command applied once per id (a repeat is
 * answered from the record), hosts listed back as views. The commands it applied are in `commands`. While `down`,
 * a command is recorded (`queued`, as the commands stream keeps it) and applied once the scheduler is back: when
 * the watch asks whether it settled, or else right after it answered the next list of hosts (a scheduler that
 * answers queries while it still applies its backlog).
 */
class StandInFleet implements FleetPort {
  readonly hosts = new Map<string, AppliedHost>();
  readonly commands: { id: string; step: NodeStep }[] = [];
  readonly queued: { id: string; step: NodeStep }[] = [];
  private readonly seen = new Set<string>();
  down = false;

  execute(step: NodeStep, commandId: string): Promise<unknown> {
    if (this.down) {
      this.queued.push({ id: commandId, step });
      return Promise.reject(new DomainError(ErrorCode.OwnerUnavailable, 'scheduler down'));
    }
    return this.apply(step, commandId);
  }

  settled(): Promise<void> {
    if (this.down) return Promise.reject(new DomainError(ErrorCode.OwnerUnavailable, 'scheduler down'));
    this.applyQueued();
    return Promise.resolve();
  }

  kubernetesHosts(): Promise<HostView[]> {
    if (this.down) return Promise.reject(new DomainError(ErrorCode.OwnerUnavailable, 'scheduler down'));
    const views = Promise.resolve(
      [...this.hosts].map(
        ([id, h]) =>
          ({
            id,
            ...h,
            scheduling: { state: h.scheduling, by: h.by, reason: null, since: '' },
            health: { ...h.health, reason: null, gpuIndex: null, since: null },
          }) as unknown as HostView,
      ),
    );
    this.applyQueued();
    return views;
  }

  gpuTypes(): Promise<{ id: string; displayName: string }[]> {
    return Promise.resolve([{ id: 'NVIDIA A100 80GB PCIe', displayName: 'A100 PCIe' }]);
  }

  private apply(step: NodeStep, commandId: string): Promise<unknown> {
    this.commands.push({ id: commandId, step });
    if (this.seen.has(commandId)) return Promise.resolve({});
    this.seen.add(commandId);
    if (step.subject === Subjects.fleet.register && step.payload.dataCenterId === 'NOWHERE') {
      return Promise.reject(new DomainError(ErrorCode.BadRequest, 'unknown data center NOWHERE'));
    }
    const id = 'id' in step.payload ? step.payload.id : step.payload.hostId;
    this.hosts.set(id, afterStep(this.hosts.get(id), step));
    return Promise.resolve({});
  }

  private applyQueued(): void {
    for (const { id, step } of this.queued.splice(0)) this.apply(step, id).catch(() => undefined);
  }

  parts(): string[] {
    return this.commands.map(
      (c) => `${c.step.part} ${'id' in c.step.payload ? c.step.payload.id : c.step.payload.hostId}`,
    );
  }
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('KubernetesNodeWatch against a fake Kubernetes API', () => {
  let api: FakeKubeApi;
  let fleet: StandInFleet;
  let watch: KubernetesNodeWatch;
  const logs: string[] = [];

  const start = (): void => {
    watch = new KubernetesNodeWatch(kubernetesNodes(api.kubeConfig()), fleet, {
      dataCenterLabel: 'topology.kubernetes.io/zone',
      unhealthyConditions: ['SysLogsXIDError'],
      unhealthyLabels: [],
      productMap: { 'NVIDIA-A100-SXM4-80GB': 'NVIDIA A100 80GB PCIe' },
      retryMs: 100,
      log: (_level, line) => logs.push(line),
    });
    watch.start();
  };
  const watching = () => until(() => api.nodes.openWatches > 0, 'a watch');

  beforeEach(async () => {
    api = new FakeKubeApi('gpucp-pods');
    await api.start();
    fleet = new StandInFleet();
    logs.length = 0;
  });

  afterEach(async () => {
    await watch.stop();
    await api.stop();
  });

  it('registers the listed nodes, then follows added, cordoned, not ready, unhealthy and deleted nodes', async () => {
    api.nodes.put({ name: 'n1', gpus: 8 });
    api.nodes.put({ name: 'n2', gpus: 4, zone: 'US-TX-3', externalIp: null, internalIp: '10.0.0.2' });
    api.nodes.put({ name: 'cpu-1', gpus: 0 });
    start();
    await watching();
    expect(fleet.hosts.get('n1')).toMatchObject({
      gpuCount: 8,
      dataCenterId: 'EU-RO-1',
      publicIp: '203.0.113.1',
    });
    expect(fleet.hosts.get('n2')).toMatchObject({
      gpuCount: 4,
      dataCenterId: 'US-TX-3',
      publicIp: '10.0.0.2',
    });
    expect(fleet.hosts.has('cpu-1')).toBe(false);
    expect(logs.filter((l) => l.includes('cpu-1'))).toHaveLength(1);

    api.nodes.put({ name: 'n3' });
    await until(() => fleet.hosts.has('n3'), 'n3 registered');
    api.nodes.put({ name: 'n1', gpus: 8, unschedulable: true });
    await until(() => fleet.hosts.get('n1')?.scheduling === 'CORDONED', 'n1 cordoned');
    api.nodes.put({ name: 'n1', gpus: 8 });
    await until(() => fleet.hosts.get('n1')?.scheduling === 'READY', 'n1 uncordoned');
    api.nodes.put({
      name: 'n2',
      gpus: 4,
      zone: 'US-TX-3',
      ready: 'Unknown',
      externalIp: null,
      internalIp: '10.0.0.2',
    });
    await until(() => fleet.hosts.get('n2')?.health.code === 'NODE_NOT_READY', 'n2 not ready');
    api.nodes.put({
      name: 'n3',
      conditions: [{ type: 'SysLogsXIDError', status: 'True', message: 'Xid 79' }],
    });
    await until(() => fleet.hosts.get('n3')?.health.code === 'XID', 'n3 XID');
    api.nodes.put({ name: 'n3', allocatable: 7 });
    await until(() => fleet.hosts.get('n3')?.health.code === 'GPU_UNHEALTHY', 'n3 GPU unhealthy');
    api.nodes.put({ name: 'n3' });
    await until(() => fleet.hosts.get('n3')?.health.healthy === true, 'n3 healthy again');
    api.nodes.delete('n3');
    await until(() => fleet.hosts.get('n3')?.scheduling === 'GONE', 'n3 removed');
    // A heartbeat (a MODIFIED event changing nothing of the host) issues nothing.
    const issued = fleet.commands.length;
    api.nodes.put({ name: 'n1', gpus: 8 });
    api.nodes.bookmark();
    api.nodes.put({ name: 'n4' });
    await until(() => fleet.hosts.has('n4'), 'n4');
    expect(fleet.parts().slice(issued)).toEqual(['register n4']);
  });

  it('lists again after a dropped watch or 410 Gone: changes meanwhile converge, deleted nodes are removed', async () => {
    api.nodes.put({ name: 'n1' });
    api.nodes.put({ name: 'n2' });
    start();
    await watching();
    expect(watch.relists).toBe(1);
    // The scheduler restarted behind a watch: the stream breaks while nodes change, and the history is compacted.
    api.nodes.dropWatches();
    api.nodes.put({ name: 'n1', unschedulable: true });
    api.nodes.delete('n2');
    api.nodes.put({ name: 'n5', gpus: 2 });
    await until(() => watch.relists === 2, 'a second list');
    await watching();
    expect(fleet.hosts.get('n1')?.scheduling).toBe('CORDONED');
    expect(fleet.hosts.get('n2')?.scheduling).toBe('GONE');
    expect(fleet.hosts.get('n5')?.gpuCount).toBe(2);

    // A watch resumed from a version older than the history kept gets 410 Gone, and lists again.
    expect(api.nodes.openWatches).toBe(1);
    api.nodes.endWatches();
    api.nodes.put({ name: 'n6' });
    api.nodes.compact();
    await until(() => watch.relists === 3, 'a third list');
    expect(fleet.hosts.has('n6')).toBe(true);
    expect(logs.some((l) => l.includes('410'))).toBe(true);
  });

  it('removes on start the hosts whose node is gone, and repeats nothing a repeated event already applied', async () => {
    fleet.hosts.set('old-node', {
      dataCenterId: 'EU-RO-1',
      gpuTypeId: 'NVIDIA A100 80GB PCIe',
      gpuCount: 8,
      publicIp: '203.0.113.9',
      scheduling: 'READY',
      by: 'kubernetes',
      health: { healthy: true, code: null, source: null },
    });
    api.nodes.put({ name: 'n1' });
    start();
    await watching();
    expect(fleet.hosts.get('old-node')?.scheduling).toBe('GONE');
    expect(fleet.parts()).toEqual(['register n1', 'remove old-node']);
    // Another leader's list issues the same ids for the same node versions: answered from the record.
    const first = fleet.commands.map((c) => c.id);
    await watch.stop();
    fleet.hosts.delete('n1');
    start();
    await watching();
    expect(fleet.commands.map((c) => c.id).slice(2)).toEqual([first[0]]);
  });

  it('lists only once the commands left unapplied while the scheduler was away are applied', async () => {
    api.nodes.put({ name: 'n1' });
    start();
    await watching();
    fleet.down = true;
    // The cordon is recorded while no scheduler runs; the node is schedulable again before it is back.
    api.nodes.put({ name: 'n1', unschedulable: true });
    await until(() => fleet.queued.length === 1, 'a cordon recorded');
    api.nodes.put({ name: 'n1' });
    const lists = watch.relists;
    fleet.down = false;
    await until(() => watch.relists > lists, 'a list');
    await watching();
    expect(fleet.hosts.get('n1')?.scheduling).toBe('READY');
    expect(fleet.parts().slice(-2)).toEqual(['cordon n1', 'uncordon n1']);
  });

  it('retries after the scheduler was unreachable, and logs a refused node once', async () => {
    fleet.down = true;
    api.nodes.put({ name: 'n1' });
    api.nodes.put({ name: 'far', zone: 'NOWHERE' });
    start();
    await until(() => logs.some((l) => l.includes('scheduler down')), 'a failed list');
    fleet.down = false;
    await watching();
    expect(fleet.hosts.has('n1')).toBe(true);
    api.nodes.put({ name: 'far', zone: 'NOWHERE', labels: { heartbeat: '2' } });
    api.nodes.put({ name: 'n7' });
    await until(() => fleet.hosts.has('n7'), 'n7');
    expect(fleet.parts().filter((p) => p === 'register far')).toHaveLength(1);
  });
});
