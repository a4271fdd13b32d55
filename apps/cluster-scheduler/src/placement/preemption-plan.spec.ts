import { describe, expect, it } from '@jest/globals';
import type { AccountQuota, Ledger } from '../quotas/quota-ledger.js';
import type { FleetSnapshot, HostCapacity, PlacementRequest } from './placement.js';
import { DEFAULT_PLUGINS } from './plugins/index.js';
import { planPreemption, type Holder, type PreemptionInput } from './preemption-plan.js';

const H100 = 'NVIDIA H100';
const DC = 'DC-1';
const host = (id: string, gpuCount: number, freeGpus: number): HostCapacity => ({
  id,
  dataCenterId: DC,
  gpuTypeId: H100,
  gpuCount,
  freeGpus,
  cpuTypeId: null,
  cpuSlots: 0,
  freeCpuSlots: 0,
  freePorts: 100,
});
const snapshot = (...hosts: HostCapacity[]): FleetSnapshot => ({
  dataCenters: [{ id: DC, region: 'US' }],
  hosts,
});
const request = (gpus: number, podCount = 1): PlacementRequest => ({
  gpuTypeId: H100,
  gpusPerPod: gpus,
  cpuTypeId: null,
  podCount,
  portsPerPod: 0,
  dataCenterIds: [],
  regions: [],
  volumeDataCenterId: null,
  hostId: null,
});
let minute = 0;
const holder = (
  podId: string,
  ownerId: string,
  hostId: string,
  gpus: number,
  extra: Partial<Holder> = {},
): Holder => ({
  podId,
  ownerId,
  clusterId: null,
  hostId,
  dataCenterId: DC,
  gpus,
  ports: 0,
  priority: 1,
  interruptible: false,
  since: new Date(Date.UTC(2026, 0, 1, 0, ++minute)),
  cohort: null,
  ...extra,
});
const quota = (accountId: string, gpus: number, cohort: string | null): AccountQuota => ({
  accountId,
  accountName: null,
  cohort,
  limits: [{ gpuTypeId: H100, dataCenterId: null, gpus, borrowingLimit: null }],
  source: 'account',
});
const noQuota: Ledger = { gpuTypeId: H100, own: null, peers: [], usage: [] };

function input(
  over: Partial<PreemptionInput> & Pick<PreemptionInput, 'holders' | 'snapshot' | 'request'>,
): PreemptionInput {
  return {
    ask: { accountId: 'a', cohort: null, priority: 1, interruptible: false, gpus: over.request.gpusPerPod },
    ledger: noQuota,
    plugins: DEFAULT_PLUGINS,
    paceLeft: () => 20,
    ...over,
  };
}

describe('preemption plans', () => {
  it("take the team's own lower-priority holders, the most recent first, and only as many as needed", () => {
    const holders = [
      holder('old-low', 'a', 'h1', 4, { priority: 0 }),
      holder('new-low', 'a', 'h1', 4, { priority: 0 }),
      holder('normal', 'a', 'h2', 8),
    ];
    const plan = planPreemption(
      input({
        ask: { accountId: 'a', cohort: null, priority: 2, interruptible: false, gpus: 4 },
        holders,
        snapshot: snapshot(host('h1', 8, 0), host('h2', 8, 0)),
        request: request(4),
      }),
    );
    expect(plan).toMatchObject({ ok: true, victims: [{ id: 'new-low', reason: 'priority' }] });
  });

  it("never take another team's holders for priority alone, nor an equal priority of the team's", () => {
    const holders = [
      holder('b-low', 'b', 'h1', 8, { priority: 0 }),
      holder('a-high', 'a', 'h2', 8, { priority: 2 }),
    ];
    const plan = planPreemption(
      input({
        ask: { accountId: 'a', cohort: null, priority: 2, interruptible: false, gpus: 8 },
        holders,
        snapshot: snapshot(host('h1', 8, 0), host('h2', 8, 0)),
        request: request(8),
      }),
    );
    expect(plan).toEqual({ ok: false, paced: false, why: 'nothing it may preempt holds GPUs of this type' });
  });

  it("take anyone's interruptible holders for a pod that is not interruptible", () => {
    const holders = [holder('spot', 'b', 'h1', 8, { interruptible: true, priority: 2 })];
    const plan = planPreemption(
      input({ holders, snapshot: snapshot(host('h1', 8, 0)), request: request(8) }),
    );
    expect(plan).toMatchObject({
      ok: true,
      victims: [{ id: 'spot', ownerId: 'b', reason: 'interruptible' }],
    });
  });

  it('reclaim what a cohort peer borrows when the asker is within its own share', () => {
    // b's share is 8 and it holds 12: its newest 4 run on borrowed GPUs (a's idle share).
    const holders = [
      holder('b-1', 'b', 'h1', 8, { cohort: 'r' }),
      holder('b-2', 'b', 'h2', 4, { cohort: 'r' }),
    ];
    const ledger: Ledger = {
      gpuTypeId: H100,
      own: quota('a', 4, 'r'),
      peers: [quota('b', 8, 'r')],
      usage: [{ ownerId: 'b', dataCenterId: DC, gpus: 12 }],
    };
    const plan = planPreemption(
      input({
        ask: { accountId: 'a', cohort: 'r', priority: 0, interruptible: false, gpus: 4 },
        ledger,
        holders,
        snapshot: snapshot(host('h1', 8, 0), host('h2', 4, 0)),
        request: request(4),
      }),
    );
    expect(plan).toMatchObject({ ok: true, victims: [{ id: 'b-2', reason: 'reclaim' }] });
  });

  it('take a whole cluster as one workload', () => {
    const holders = [
      holder('m-0', 'a', 'h1', 8, { clusterId: 'cl', priority: 0 }),
      holder('m-1', 'a', 'h2', 8, { clusterId: 'cl', priority: 0 }),
    ];
    const plan = planPreemption(
      input({
        ask: { accountId: 'a', cohort: null, priority: 1, interruptible: false, gpus: 8 },
        holders,
        snapshot: snapshot(host('h1', 8, 0), host('h2', 8, 0)),
        request: request(8),
      }),
    );
    expect(plan).toMatchObject({ ok: true, victims: [{ id: 'cl', clusterId: 'cl', gpus: 16 }] });
  });

  it('stop at the pace limit of the cohort that holds the GPUs', () => {
    const holders = [
      holder('s1', 'b', 'h1', 4, { interruptible: true }),
      holder('s2', 'b', 'h1', 4, { interruptible: true }),
    ];
    const plan = planPreemption(
      input({ holders, snapshot: snapshot(host('h1', 8, 0)), request: request(8), paceLeft: () => 1 }),
    );
    expect(plan).toMatchObject({ ok: false, paced: true });
  });
});
