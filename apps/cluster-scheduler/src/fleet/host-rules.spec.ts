import { describe, expect, it } from '@jest/globals';
import { DomainError, ErrorCode } from '@app/contracts';
import { resized, type HostLedger } from './host-capacity.js';
import {
  cordon,
  drain,
  isSchedulable,
  remove,
  reportHealth,
  reRegister,
  shownState,
  uncordon,
  unschedulableSentence,
  type HostStatus,
} from './host-rules.js';

const READY: HostStatus & { healthGpuIndex: number | null; gpuCount: number } = {
  id: 'h-1',
  schedulingState: 'READY',
  schedulingBy: 'file',
  schedulingReason: null,
  healthy: true,
  healthCode: null,
  healthReason: null,
  healthSource: null,
  healthGpuIndex: null,
  gpuCount: 8,
};
const host = (patch: Partial<typeof READY>) => ({ ...READY, ...patch });
const DEADLINE = new Date('2026-03-01T13:00:00.000Z');

function refusal(run: () => unknown): DomainError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error('expected a refusal');
}

describe('shownState', () => {
  it('shows the first of GONE, UNHEALTHY, DRAINING, CORDONED, READY; only READY is schedulable', () => {
    expect(shownState(host({ schedulingState: 'GONE', healthy: false, healthCode: 'XID' }))).toBe('GONE');
    expect(shownState(host({ schedulingState: 'DRAINING', healthy: false, healthCode: 'XID' }))).toBe(
      'UNHEALTHY',
    );
    expect(shownState(host({ schedulingState: 'DRAINING' }))).toBe('DRAINING');
    expect(shownState(host({ schedulingState: 'CORDONED' }))).toBe('CORDONED');
    expect(shownState(READY)).toBe('READY');
    expect(isSchedulable(READY)).toBe(true);
    expect(isSchedulable(host({ schedulingState: 'CORDONED' }))).toBe(false);
    expect(isSchedulable(host({ healthy: false, healthCode: 'ECC' }))).toBe(false);
  });

  it('says why a host takes no pods: its state, who and the sentence', () => {
    const draining = host({
      schedulingState: 'DRAINING',
      schedulingBy: 'operator',
      schedulingReason: 'kernel',
    });
    expect(unschedulableSentence(draining)).toBe(
      'host h-1 is DRAINING (by operator: kernel) and takes no new pods',
    );
    const xid = host({
      healthy: false,
      healthCode: 'XID',
      healthReason: 'Xid 79 on GPU 3',
      healthSource: 'runtime',
    });
    expect(unschedulableSentence(xid)).toBe(
      'host h-1 is UNHEALTHY (XID, by runtime: Xid 79 on GPU 3) and takes no new pods',
    );
  });
});

describe('cordon and uncordon', () => {
  it('cordons a READY host; cordoning again is a no-op; an operator takes over a Kubernetes cordon', () => {
    expect(cordon(READY, 'operator', 'maintenance')).toEqual({
      state: 'CORDONED',
      by: 'operator',
      reason: 'maintenance',
      drainDeadline: null,
    });
    const byOperator = host({ schedulingState: 'CORDONED', schedulingBy: 'operator' });
    expect(cordon(byOperator, 'operator', null)).toBeNull();
    expect(cordon(byOperator, 'kubernetes', null)).toBeNull();
    const byKube = host({
      schedulingState: 'CORDONED',
      schedulingBy: 'kubernetes',
      schedulingReason: 'node',
    });
    expect(cordon(byKube, 'operator', null)).toMatchObject({ by: 'operator', reason: 'node' });
  });

  it("stops an operator's drain on an operator's cordon, not on the node watch's", () => {
    const draining = host({ schedulingState: 'DRAINING', schedulingBy: 'operator' });
    expect(cordon(draining, 'operator', null)).toMatchObject({ state: 'CORDONED', drainDeadline: null });
    expect(cordon(draining, 'kubernetes', null)).toBeNull();
  });

  it("never lets Kubernetes lift an operator's cordon or drain; lifts its own; an operator lifts any", () => {
    for (const state of ['CORDONED', 'DRAINING'] as const) {
      const held = host({ schedulingState: state, schedulingBy: 'operator' });
      expect(uncordon(held, 'kubernetes')).toBeNull();
      expect(uncordon(held, 'operator')).toMatchObject({ state: 'READY', by: 'operator' });
    }
    const byKube = host({ schedulingState: 'CORDONED', schedulingBy: 'kubernetes' });
    expect(uncordon(byKube, 'kubernetes')).toMatchObject({ state: 'READY' });
    expect(uncordon(READY, 'operator')).toBeNull();
  });

  it("keeps an operator's hold when the node watch drains the host", () => {
    const held = host({ schedulingState: 'CORDONED', schedulingBy: 'operator' });
    expect(drain(held, 'kubernetes', null, DEADLINE)).toMatchObject({ state: 'DRAINING', by: 'operator' });
  });
});

describe('drain, remove, register again', () => {
  it('drains READY or CORDONED until the deadline; draining again is a no-op', () => {
    expect(drain(READY, 'operator', 'rack move', DEADLINE)).toEqual({
      state: 'DRAINING',
      by: 'operator',
      reason: 'rack move',
      drainDeadline: DEADLINE,
    });
    expect(drain(host({ schedulingState: 'DRAINING' }), 'operator', null, DEADLINE)).toBeNull();
  });

  it('refuses to cordon, uncordon or drain a GONE host', () => {
    const gone = host({ schedulingState: 'GONE' });
    for (const run of [
      () => cordon(gone, 'operator', null),
      () => uncordon(gone, 'operator'),
      () => drain(gone, 'operator', null, DEADLINE),
    ]) {
      expect(refusal(run).code).toBe(ErrorCode.InvalidState);
    }
  });

  it('lets an operator remove only a host without pods; the node watch removes it whatever it holds', () => {
    const error = refusal(() => remove(READY, 'operator', 3));
    expect(error.code).toBe(ErrorCode.InvalidState);
    expect(error.message).toMatch(/^host h-1 still holds 3 pods/);
    expect(remove(READY, 'operator', 0)).toMatchObject({ state: 'GONE', by: 'operator' });
    expect(remove(READY, 'kubernetes', 3)).toMatchObject({ state: 'GONE', by: 'kubernetes' });
    expect(remove(host({ schedulingState: 'GONE' }), 'operator', 0)).toBeNull();
  });

  it('brings a GONE host back READY when registered again; any other keeps its state', () => {
    expect(reRegister(host({ schedulingState: 'GONE' }), 'kubernetes')).toMatchObject({
      state: 'READY',
      by: 'kubernetes',
    });
    expect(reRegister(host({ schedulingState: 'CORDONED' }), 'operator')).toBeNull();
  });
});

describe('reportHealth', () => {
  it('needs a code for an unhealthy report', () => {
    const error = refusal(() => reportHealth(READY, { healthy: false, source: 'operator' }));
    expect(error.code).toBe(ErrorCode.BadRequest);
    expect(error.message).toMatch(/needs a code/);
  });

  it('refuses a GPU the host does not have', () => {
    const report = { healthy: false, source: 'runtime', code: 'XID', gpuIndex: 8 } as const;
    expect(refusal(() => reportHealth(READY, report)).message).toBe(
      'host h-1 has 8 GPUs: gpuIndex 8 is not one of them',
    );
    expect(refusal(() => reportHealth(host({ gpuCount: 0 }), { ...report, gpuIndex: 0 })).code).toBe(
      ErrorCode.BadRequest,
    );
  });

  it('records an unhealthy report once; healthy clears what its own source or an operator reported', () => {
    const report = { healthy: false, source: 'runtime', code: 'XID', reason: 'Xid 79', gpuIndex: 3 } as const;
    expect(reportHealth(READY, report)).toEqual({
      healthy: false,
      code: 'XID',
      reason: 'Xid 79',
      source: 'runtime',
      gpuIndex: 3,
    });
    const sick = host({
      healthy: false,
      healthCode: 'XID',
      healthReason: 'Xid 79',
      healthSource: 'runtime',
      healthGpuIndex: 3,
    });
    expect(reportHealth(sick, report)).toBeNull();
    expect(reportHealth(sick, { healthy: true, source: 'start-failures' })).toBeNull();
    expect(reportHealth(sick, { healthy: true, source: 'runtime' })).toMatchObject({
      healthy: true,
      code: null,
    });
    expect(reportHealth(sick, { healthy: true, source: 'operator' })).toMatchObject({ healthy: true });
    expect(reportHealth(READY, { healthy: true, source: 'runtime' })).toBeNull();
  });

  it("keeps an operator's quarantine against the runtime's reports", () => {
    const quarantined = host({ healthy: false, healthCode: 'OPERATOR', healthSource: 'operator' });
    expect(reportHealth(quarantined, { healthy: true, source: 'runtime' })).toBeNull();
    expect(reportHealth(quarantined, { healthy: false, source: 'runtime', code: 'ECC' })).toBeNull();
  });
});

describe('resized', () => {
  const ledger: HostLedger = {
    dataCenterId: 'US-TX-3',
    gpuTypeId: 'NVIDIA L4',
    gpuCount: 8,
    freeGpus: 5,
    cpuTypeId: null,
    cpuSlots: 0,
    freeCpuSlots: 0,
    publicIp: '10.0.0.1',
    portStart: 20000,
    portEnd: 20099,
    freePorts: 98,
  };
  const held = { pods: 2, ports: [20000, 20001] };

  it('keeps what the pods hold: free = new capacity − held', () => {
    const next = { ...ledger, gpuCount: 4, portStart: 20000, portEnd: 20009 };
    expect(resized('h-1', ledger, next, held)).toMatchObject({ gpuCount: 4, freeGpus: 1, freePorts: 8 });
  });

  it('refuses fewer GPUs than held or dropping a mapped port (INVALID_STATE), a move with pods (CONFLICT)', () => {
    const fewer = refusal(() => resized('h-1', ledger, { ...ledger, gpuCount: 2 }, held));
    expect(fewer.code).toBe(ErrorCode.InvalidState);
    expect(fewer.message).toMatch(/2 GPUs where its pods hold 3/);
    const ports = refusal(() => resized('h-1', ledger, { ...ledger, portStart: 20001 }, held));
    expect(ports.message).toMatch(/leaving out 1 its pods map \(20000\)/);
    const moved = refusal(() => resized('h-1', ledger, { ...ledger, dataCenterId: 'EU-RO-1' }, held));
    expect(moved.code).toBe(ErrorCode.Conflict);
    expect(
      resized('h-1', ledger, { ...ledger, dataCenterId: 'EU-RO-1' }, { pods: 0, ports: [] }),
    ).toMatchObject({
      dataCenterId: 'EU-RO-1',
    });
  });
});
