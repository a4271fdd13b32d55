import { describe, expect, it } from '@jest/globals';
import type { Ledger } from '../../quotas/quota-ledger.js';
import { place, type PlacementRequest } from '../placement.js';
import { DEFAULT_PLUGINS } from '../plugins/index.js';
import { ReserveBatch, ledgerKey, shapeKey, surePlace, type BatchHost } from './reserve-batch.js';

const A100 = 'NVIDIA A100 80GB PCIe';
const H100 = 'NVIDIA H100 80GB HBM3';
const DCS = [
  { id: 'EU-RO-1', region: 'EU' },
  { id: 'US-TX-3', region: 'NA' },
];

function host(id: string, dataCenterId: string, freeGpus: number, gpuTypeId = A100): BatchHost {
  return {
    id,
    dataCenterId,
    gpuTypeId,
    gpuCount: 8,
    freeGpus,
    cpuTypeId: 'cpu3c',
    cpuSlots: 0,
    freeCpuSlots: 0,
    freePorts: 10,
    publicIp: '192.0.2.1',
    portStart: 10000,
    portEnd: 10009,
    used: new Set(),
  };
}

function request(overrides: Partial<PlacementRequest> = {}): PlacementRequest {
  return {
    gpuTypeId: A100,
    gpusPerPod: 1,
    cpuTypeId: null,
    podCount: 1,
    portsPerPod: 1,
    dataCenterIds: [],
    regions: [],
    volumeDataCenterId: null,
    hostId: null,
    ...overrides,
  };
}

/** A batch that read `hosts` for the shape of `asked`, `incomplete` naming the data centers it did not finish. */
function batchOf(hosts: BatchHost[], asked: PlacementRequest, incomplete: string[] = []): ReserveBatch {
  const batch = new ReserveBatch();
  for (const h of hosts) batch.hosts.set(h.id, h);
  batch.shapes.set(shapeKey(asked), {
    dataCenters: DCS,
    hostIds: new Set(hosts.map((h) => h.id)),
    incomplete: new Set(incomplete),
    gpuTypeId: asked.gpuTypeId,
  });
  return batch;
}

describe('a batch of reserves planned from what it read', () => {
  it('plans as `place` does while the hosts read fit the pods, and says nothing when they may not', () => {
    const asked = request();
    const batch = batchOf([host('a', 'EU-RO-1', 1), host('b', 'US-TX-3', 2)], asked, ['EU-RO-1']);
    const first = batch.snapshot(asked)!;
    expect(surePlace(first.snapshot, first.incomplete, asked, DEFAULT_PLUGINS)).toEqual(
      place(first.snapshot, asked, DEFAULT_PLUGINS),
    );
    // Host a (EU-RO-1, the first data center) takes the pod; then it is full and EU-RO-1 has hosts not read.
    batch.fold({
      ownerId: 'acct',
      gpuTypeId: A100,
      dataCenterId: 'EU-RO-1',
      hostId: 'a',
      gpus: 1,
      cpuSlots: 0,
      ports: [10000],
    });
    const second = batch.snapshot(asked)!;
    expect(second.snapshot.hosts.find((h) => h.id === 'a')).toMatchObject({ freeGpus: 0, freePorts: 9 });
    expect(batch.hosts.get('a')!.used).toEqual(new Set([10000]));
    expect(surePlace(second.snapshot, second.incomplete, asked, DEFAULT_PLUGINS)).toBeNull();
    // Read to the end, EU-RO-1 is full: the pod goes to US-TX-3.
    second.incomplete.delete('EU-RO-1');
    expect(surePlace(second.snapshot, second.incomplete, asked, DEFAULT_PLUGINS)).toMatchObject({
      ok: true,
      dataCenterId: 'US-TX-3',
      assignments: [{ rank: 0, hostId: 'b' }],
    });
  });

  it('drops the snapshot of another shape that did not read a host the claim took, and keeps one that did', () => {
    const one = request();
    const two = request({ gpusPerPod: 2 });
    const h100 = request({ gpuTypeId: H100 });
    const batch = batchOf([host('a', 'EU-RO-1', 3)], one);
    batch.shapes.set(shapeKey(two), { ...batch.shapes.get(shapeKey(one))!, hostIds: new Set() });
    batch.shapes.set(shapeKey(h100), {
      ...batch.shapes.get(shapeKey(one))!,
      hostIds: new Set(),
      gpuTypeId: H100,
    });
    batch.fold({
      ownerId: 'acct',
      gpuTypeId: A100,
      dataCenterId: 'EU-RO-1',
      hostId: 'a',
      gpus: 1,
      cpuSlots: 0,
      ports: [],
    });
    expect(batch.snapshot(one)).toBeDefined();
    expect(batch.snapshot(two)).toBeUndefined();
    expect(batch.snapshot(h100)).toBeDefined();
  });

  it("counts a claim in the ledgers that count its owner's use of its type, and in no other", () => {
    const quota = (accountId: string) => ({
      accountId,
      accountName: null,
      cohort: 'c',
      limits: [{ gpuTypeId: A100, dataCenterId: null, gpus: 4, borrowingLimit: null }],
      source: 'account' as const,
    });
    const ledger = (own: string, peers: string[], gpuTypeId = A100): Ledger => ({
      gpuTypeId,
      own: quota(own),
      peers: peers.map(quota),
      usage: [{ ownerId: own, dataCenterId: 'EU-RO-1', gpus: 2 }],
    });
    const batch = batchOf([host('a', 'EU-RO-1', 8)], request());
    batch.ledgers.set(ledgerKey('x', A100), ledger('x', ['y']));
    batch.ledgers.set(ledgerKey('y', A100), ledger('y', ['x']));
    batch.ledgers.set(ledgerKey('z', A100), ledger('z', []));
    batch.ledgers.set(ledgerKey('x', H100), ledger('x', ['y'], H100));
    batch.ledgers.set(ledgerKey('w', A100), null);
    batch.fold({
      ownerId: 'x',
      gpuTypeId: A100,
      dataCenterId: 'EU-RO-1',
      hostId: 'a',
      gpus: 2,
      cpuSlots: 0,
      ports: [],
    });
    expect(batch.ledgers.get(ledgerKey('x', A100))!.usage).toEqual([
      { ownerId: 'x', dataCenterId: 'EU-RO-1', gpus: 4 },
    ]);
    expect(batch.ledgers.get(ledgerKey('y', A100))!.usage).toEqual([
      { ownerId: 'y', dataCenterId: 'EU-RO-1', gpus: 2 },
      { ownerId: 'x', dataCenterId: 'EU-RO-1', gpus: 2 },
    ]);
    expect(batch.ledgers.get(ledgerKey('z', A100))!.usage).toEqual([
      { ownerId: 'z', dataCenterId: 'EU-RO-1', gpus: 2 },
    ]);
    expect(batch.ledgers.get(ledgerKey('x', H100))!.usage).toEqual([
      { ownerId: 'x', dataCenterId: 'EU-RO-1', gpus: 2 },
    ]);
  });

  it("gives a pod's first reads once: a second reserve of the pod reads again", () => {
    const batch = new ReserveBatch();
    batch.pods.set('p', { held: null, clusterId: null });
    expect(batch.takePod('p')).toEqual({ held: null, clusterId: null });
    expect(batch.takePod('p')).toBeUndefined();
  });
});
