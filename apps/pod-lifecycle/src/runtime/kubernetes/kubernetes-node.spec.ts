import { describe, expect, it } from '@jest/globals';
import type { V1Node } from '@kubernetes/client-node';
import {
  gpuTypeResolver,
  nodeHost,
  parseLabelMatches,
  parseProductMap,
  type NodeHostOptions,
} from './kubernetes-node.js';
import { afterStep, planNode, planRemoval, type AppliedHost } from './kubernetes-node-plan.js';

const CATALOG = [
  { id: 'NVIDIA A100 80GB PCIe', displayName: 'A100 PCIe' },
  { id: 'NVIDIA GeForce RTX 4090', displayName: 'RTX 4090' },
  { id: 'NVIDIA H100 80GB HBM3', displayName: 'H100 SXM' },
];
const gpuTypeOf = gpuTypeResolver(parseProductMap('NVIDIA-A100-SXM4-80GB=NVIDIA A100 80GB PCIe'), CATALOG);
const OPTIONS: NodeHostOptions = {
  dataCenterLabel: 'topology.kubernetes.io/zone',
  unhealthyConditions: ['GpuXidError', 'SysLogsXIDError', 'GpuMemWatch', 'GpuPcieWatch'],
  unhealthyLabels: parseLabelMatches('example.com/gpu-bad,example.com/state=quarantined'),
};

function node(overrides: {
  labels?: Record<string, string>;
  capacity?: string;
  allocatable?: string;
  unschedulable?: boolean;
  conditions?: { type: string; status: string; reason?: string; message?: string }[];
  addresses?: { type: string; address: string }[];
  name?: string;
}): V1Node {
  return {
    metadata: {
      name: overrides.name ?? 'gpu-node-1',
      uid: 'u1',
      resourceVersion: '7',
      labels: {
        'nvidia.com/gpu.product': 'NVIDIA-A100-SXM4-80GB',
        'topology.kubernetes.io/zone': 'EU-RO-1',
        ...overrides.labels,
      },
    },
    spec: overrides.unschedulable ? { unschedulable: true } : {},
    status: {
      capacity: { 'nvidia.com/gpu': overrides.capacity ?? '8' },
      allocatable: { 'nvidia.com/gpu': overrides.allocatable ?? overrides.capacity ?? '8' },
      addresses: overrides.addresses ?? [
        { type: 'InternalIP', address: '10.0.0.5' },
        { type: 'ExternalIP', address: '203.0.113.5' },
      ],
      conditions: overrides.conditions ?? [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }],
    },
  };
}

const hostOf = (n: V1Node) => {
  const mapped = nodeHost(n, OPTIONS, gpuTypeOf);
  if ('skipped' in mapped) throw new Error(mapped.skipped);
  return mapped.host;
};
const skipOf = (n: V1Node): string => {
  const mapped = nodeHost(n, OPTIONS, gpuTypeOf);
  return 'skipped' in mapped ? mapped.skipped : 'mapped';
};

describe('a Kubernetes node as a host', () => {
  it('takes id, GPUs, GPU type, data center and the external IP from the node', () => {
    expect(hostOf(node({}))).toEqual({
      id: 'gpu-node-1',
      dataCenterId: 'EU-RO-1',
      gpuTypeId: 'NVIDIA A100 80GB PCIe',
      gpuCount: 8,
      publicIp: '203.0.113.5',
      cordoned: false,
      health: { healthy: true },
    });
  });

  it('maps products by the mapping, else by the catalog id or display name, ignoring -SHARED', () => {
    expect(gpuTypeOf('NVIDIA-A100-SXM4-80GB')).toBe('NVIDIA A100 80GB PCIe');
    expect(gpuTypeOf('NVIDIA-GeForce-RTX-4090')).toBe('NVIDIA GeForce RTX 4090');
    expect(gpuTypeOf('NVIDIA-GeForce-RTX-4090-SHARED')).toBe('NVIDIA GeForce RTX 4090');
    expect(gpuTypeOf('H100-SXM')).toBe('NVIDIA H100 80GB HBM3');
    expect(gpuTypeOf('Tesla-T4')).toBeNull();
  });

  it('falls back to the internal IP, skips IPv6-only nodes', () => {
    expect(hostOf(node({ addresses: [{ type: 'InternalIP', address: '10.0.0.5' }] })).publicIp).toBe(
      '10.0.0.5',
    );
    expect(skipOf(node({ addresses: [{ type: 'InternalIP', address: 'fd00::5' }] }))).toMatch(/no IPv4/);
  });

  it('skips nodes without GPUs, without a product label, an unknown product or no data center', () => {
    expect(skipOf(node({ capacity: '0' }))).toMatch(/not a GPU node/);
    expect(skipOf(node({ labels: { 'nvidia.com/gpu.product': '' } }))).toMatch(/gpu.product label/);
    expect(skipOf(node({ labels: { 'nvidia.com/gpu.product': 'Tesla-T4' } }))).toMatch(
      /Tesla-T4 matches no catalog GPU type/,
    );
    expect(skipOf(node({ labels: { 'topology.kubernetes.io/zone': '' } }))).toMatch(/zone label/);
    expect(skipOf(node({ name: 'Upper_Case' }))).toMatch(/not a host id/);
  });

  it('is cordoned by spec.unschedulable', () => {
    expect(hostOf(node({ unschedulable: true })).cordoned).toBe(true);
  });

  it('is NODE_NOT_READY when Ready is False or Unknown, or not reported', () => {
    const notReady = hostOf(
      node({
        conditions: [
          {
            type: 'Ready',
            status: 'Unknown',
            reason: 'NodeStatusUnknown',
            message: 'Kubelet stopped posting node status.',
          },
        ],
      }),
    );
    expect(notReady.health).toEqual({
      healthy: false,
      code: 'NODE_NOT_READY',
      reason:
        'node gpu-node-1 is not ready (Ready is Unknown; NodeStatusUnknown: Kubelet stopped posting node status.)',
    });
    expect(hostOf(node({ conditions: [] })).health).toMatchObject({ code: 'NODE_NOT_READY' });
  });

  it("is unhealthy by the GPU health monitors' conditions: XID, ECC (memory watch), else GPU_UNHEALTHY", () => {
    const ready = { type: 'Ready', status: 'True' };
    const xid = hostOf(
      node({
        conditions: [
          ready,
          {
            type: 'SysLogsXIDError',
            status: 'True',
            message: 'ErrorCode:79 PCI:0000:17:00 GPU has fallen off the bus',
          },
        ],
      }),
    );
    expect(xid.health).toEqual({
      healthy: false,
      code: 'XID',
      reason: 'SysLogsXIDError on node gpu-node-1: ErrorCode:79 PCI:0000:17:00 GPU has fallen off the bus',
    });
    expect(
      hostOf(node({ conditions: [ready, { type: 'GpuMemWatch', status: 'True' }] })).health,
    ).toMatchObject({
      code: 'ECC',
    });
    expect(
      hostOf(node({ conditions: [ready, { type: 'GpuPcieWatch', status: 'True' }] })).health,
    ).toMatchObject({
      code: 'GPU_UNHEALTHY',
    });
    // False is healthy, and a condition not listed counts for nothing.
    expect(
      hostOf(node({ conditions: [ready, { type: 'GpuMemWatch', status: 'False' }] })).health.healthy,
    ).toBe(true);
    expect(
      hostOf(node({ conditions: [ready, { type: 'DiskPressure', status: 'True' }] })).health.healthy,
    ).toBe(true);
  });

  it('is unhealthy by a configured label, and when the device plugin withdrew GPUs (keeping its size)', () => {
    expect(hostOf(node({ labels: { 'example.com/gpu-bad': 'yes' } })).health).toMatchObject({
      code: 'GPU_UNHEALTHY',
    });
    expect(hostOf(node({ labels: { 'example.com/state': 'ok' } })).health.healthy).toBe(true);
    expect(hostOf(node({ labels: { 'example.com/state': 'quarantined' } })).health.healthy).toBe(false);
    const withdrawn = hostOf(node({ allocatable: '6' }));
    expect(withdrawn.gpuCount).toBe(8);
    expect(withdrawn.health).toMatchObject({ healthy: false, code: 'GPU_UNHEALTHY' });
    expect(withdrawn.health.healthy === false && withdrawn.health.reason).toMatch(
      /^2 of 8 GPUs of node gpu-node-1 unhealthy/,
    );
  });
});

describe('the commands that bring a host in line with its node', () => {
  const applied = (over: Partial<AppliedHost> = {}): AppliedHost => ({
    dataCenterId: 'EU-RO-1',
    gpuTypeId: 'NVIDIA A100 80GB PCIe',
    gpuCount: 8,
    publicIp: '203.0.113.5',
    scheduling: 'READY',
    by: 'kubernetes',
    health: { healthy: true, code: null, source: null },
    ...over,
  });
  const parts = (n: V1Node, a?: AppliedHost): string[] => planNode(hostOf(n), a).map((s) => s.part);

  it('registers a new host, and then nothing while nothing differs', () => {
    expect(parts(node({}))).toEqual(['register']);
    expect(parts(node({}), applied())).toEqual([]);
    expect(parts(node({ capacity: '4' }), applied())).toEqual(['register']);
    expect(parts(node({}), applied({ scheduling: 'GONE' }))).toEqual(['register']);
  });

  it('cordons and uncordons, never lifting an operator cordon or drain', () => {
    expect(parts(node({ unschedulable: true }))).toEqual(['register', 'cordon']);
    expect(parts(node({ unschedulable: true }), applied({ scheduling: 'CORDONED', by: 'operator' }))).toEqual(
      [],
    );
    expect(parts(node({}), applied({ scheduling: 'CORDONED', by: 'kubernetes' }))).toEqual(['uncordon']);
    expect(parts(node({}), applied({ scheduling: 'CORDONED', by: 'operator' }))).toEqual([]);
    expect(parts(node({}), applied({ scheduling: 'DRAINING', by: 'operator' }))).toEqual([]);
  });

  it("reports health changes, clearing only the runtime's own report", () => {
    const notReady = node({ conditions: [{ type: 'Ready', status: 'False' }] });
    expect(parts(notReady, applied())).toEqual(['health']);
    expect(
      parts(notReady, applied({ health: { healthy: false, code: 'NODE_NOT_READY', source: 'runtime' } })),
    ).toEqual([]);
    expect(parts(notReady, applied({ health: { healthy: false, code: 'XID', source: 'runtime' } }))).toEqual([
      'health',
    ]);
    expect(
      parts(node({}), applied({ health: { healthy: false, code: 'NODE_NOT_READY', source: 'runtime' } })),
    ).toEqual(['health']);
    expect(
      parts(node({}), applied({ health: { healthy: false, code: 'OPERATOR', source: 'operator' } })),
    ).toEqual([]);
    const [step] = planNode(
      hostOf(node({})),
      applied({ health: { healthy: false, code: 'XID', source: 'runtime' } }),
    );
    expect(afterStep(applied(), step).health).toEqual({ healthy: true, code: null, source: null });
  });

  it('removes a host once', () => {
    expect(planRemoval('h', applied()).map((s) => s.payload)).toEqual([{ hostId: 'h', by: 'kubernetes' }]);
    expect(planRemoval('h', applied({ scheduling: 'GONE' }))).toEqual([]);
    expect(planRemoval('h', undefined)).toEqual([]);
  });
});
