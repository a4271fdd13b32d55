import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { DomainError, ErrorCode, Subjects } from '@app/contracts';
import { FLEET_NOW as NOW, FleetKit } from '../../../../test/support/cluster-scheduler-fleet.js';
import { SMALL_FLEET, SchedulerCommands } from '../../../../test/support/cluster-scheduler-commands.js';

/**
 * The fleet's commands over cluster-scheduler's real schema and SMALL_FLEET (L4: tx-l4-1 of 4 GPUs and tx-l4-2 of 2
 * in US-TX-3, ro-l4-1 of 8 in EU-RO-1): registration, cordon and uncordon, health, what placement does with hosts
 * not READY, and the host-changed events in the outbox.
 */
let scheduler: SchedulerCommands;
let fleet: FleetKit;

beforeAll(async () => {
  scheduler = await SchedulerCommands.start('scheduler_fleet', { fleet: SMALL_FLEET });
  fleet = new FleetKit(scheduler.harness);
});

afterAll(async () => {
  await scheduler?.stop();
});

afterEach(() => fleet.reset());

const send: FleetKit['send'] = (subject, payload, at) => fleet.send(subject, payload, at);
const reserve: FleetKit['reserve'] = (gpus, extra) => fleet.reserve(gpus, extra);
const host: FleetKit['host'] = (hostId) => fleet.host(hostId);
const hostEvents: FleetKit['hostEvents'] = () => fleet.hostEvents();

async function refusal(promise: Promise<unknown>): Promise<DomainError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  return error as DomainError;
}

describe('register', () => {
  const h9 = {
    id: 'ro-4090-9',
    dataCenterId: 'EU-RO-1',
    gpuTypeId: 'NVIDIA RTX 4090',
    gpuCount: 4,
    publicIp: '203.0.113.9',
  };

  it('adds a host READY, refuses what the catalog does not know, updates an existing one', async () => {
    expect(await send(Subjects.fleet.register, h9)).toEqual({ hostId: h9.id, created: true, state: 'READY' });
    expect(await host(h9.id)).toMatchObject({
      state: 'READY',
      source: 'api',
      schedulable: true,
      portRange: [20000, 20999],
      scheduling: { state: 'READY', by: 'operator', reason: null, since: new Date(NOW).toISOString() },
    });
    expect(await hostEvents()).toEqual([
      {
        hostId: h9.id,
        dataCenterId: 'EU-RO-1',
        state: 'READY',
        previousState: 'GONE',
        reason: null,
        healthCode: null,
        drainDeadline: null,
        pods: [],
      },
    ]);
    for (const [patch, named] of [
      [{ dataCenterId: 'XX-1' }, 'data center "XX-1"'],
      [{ gpuTypeId: 'NVIDIA H900' }, 'GPU type "NVIDIA H900"'],
      [{ cpuTypeId: 'cpu9z' }, 'CPU type "cpu9z"'],
    ] as const) {
      const error = await refusal(send(Subjects.fleet.register, { ...h9, id: 'other', ...patch }));
      expect(error.code).toBe(ErrorCode.BadRequest);
      expect(error.message).toContain(named);
    }
    expect(await send(Subjects.fleet.register, h9)).toEqual({
      hostId: h9.id,
      created: false,
      state: 'READY',
    });
    await send(Subjects.fleet.register, { ...h9, gpuCount: 6 });
    expect(await host(h9.id)).toMatchObject({ gpuCount: 6, allocatedGpus: 0 });
    expect(await hostEvents()).toHaveLength(1); // capacity changes are no state change
  });

  it('keeps what pods hold: refuses less than held, a move with pods; a GONE host comes back READY', async () => {
    await send(Subjects.fleet.register, h9);
    const placed = await reserve(3, { gpuTypeId: 'NVIDIA RTX 4090' });
    expect(placed.hostId).toBe(h9.id);
    const less = await refusal(send(Subjects.fleet.register, { ...h9, gpuCount: 2 }));
    expect(less.code).toBe(ErrorCode.InvalidState);
    expect(less.message).toMatch(/2 GPUs where its pods hold 3/);
    const moved = await refusal(send(Subjects.fleet.register, { ...h9, dataCenterId: 'US-TX-3' }));
    expect(moved.code).toBe(ErrorCode.Conflict);
    await send(Subjects.fleet.register, { ...h9, gpuCount: 8 });
    expect(await host(h9.id)).toMatchObject({ gpuCount: 8, allocatedGpus: 3, pods: 1 });

    const held = await refusal(send(Subjects.fleet.remove, { hostId: h9.id }));
    expect(held.code).toBe(ErrorCode.InvalidState);
    expect(held.message).toMatch(/still holds 1 pod:/);
    await send(Subjects.placement.release, { podId: placed.podId });
    expect(await send(Subjects.fleet.remove, { hostId: h9.id })).toEqual({
      hostId: h9.id,
      state: 'GONE',
      changed: true,
    });
    expect(await send(Subjects.fleet.register, { ...h9, source: 'kubernetes' })).toEqual({
      hostId: h9.id,
      created: false,
      state: 'READY',
    });
    expect(await host(h9.id)).toMatchObject({
      source: 'kubernetes',
      scheduling: { by: 'kubernetes' },
      allocatedGpus: 0,
    });
    expect((await hostEvents()).map((e) => `${e.previousState}→${e.state}`)).toEqual([
      'GONE→READY',
      'READY→GONE',
      'GONE→READY',
    ]);
  });
});

describe('cordon and uncordon', () => {
  it("lets the node watch lift its own cordon, never an operator's", async () => {
    const cordon = (by: string) => send(Subjects.fleet.cordon, { hostId: 'tx-l4-2', by, reason: `by ${by}` });
    const uncordon = (by: string) => send(Subjects.fleet.uncordon, { hostId: 'tx-l4-2', by });
    expect(await cordon('kubernetes')).toEqual({ hostId: 'tx-l4-2', state: 'CORDONED', changed: true });
    expect(await uncordon('kubernetes')).toEqual({ hostId: 'tx-l4-2', state: 'READY', changed: true });
    await cordon('operator');
    expect(await uncordon('kubernetes')).toEqual({ hostId: 'tx-l4-2', state: 'CORDONED', changed: false });
    expect(await host('tx-l4-2')).toMatchObject({
      state: 'CORDONED',
      schedulable: false,
      scheduling: { by: 'operator', reason: 'by operator' },
    });
    expect(await uncordon('operator')).toMatchObject({ state: 'READY', changed: true });
    expect((await hostEvents()).map((e) => `${e.state} ${e.reason}`)).toEqual([
      'CORDONED by kubernetes',
      'READY null',
      'CORDONED by operator',
      'READY null',
    ]);
  });

  it('places nothing on a host not READY: a reserve goes elsewhere, or is refused', async () => {
    await send(Subjects.fleet.cordon, { hostId: 'tx-l4-1' });
    expect((await reserve(1, { dataCenterIds: ['US-TX-3'] })).hostId).toBe('tx-l4-2');
    await send(Subjects.fleet.drain, { hostId: 'tx-l4-2' });
    const error = await refusal(reserve(1, { dataCenterIds: ['US-TX-3'] }));
    expect(error.code).toBe(ErrorCode.CapacityUnavailable);
    expect((await reserve(1)).hostId).toBe('ro-l4-1');
  });

  it('refuses a pinned resume on a host not READY, naming its state and reason', async () => {
    const placed = await reserve(1, { hostId: 'tx-l4-1' });
    await send(Subjects.placement.release, { podId: placed.podId });
    await send(Subjects.fleet.drain, { hostId: 'tx-l4-1', reason: 'kernel upgrade' });
    const error = await refusal(reserve(1, { hostId: 'tx-l4-1' }));
    expect(error.code).toBe(ErrorCode.CapacityUnavailable);
    expect(error.message).toBe(
      'host tx-l4-1 is DRAINING (by operator: kernel upgrade) and takes no new pods',
    );
  });
});

describe('report-health', () => {
  it('quarantines an unhealthy host with its pods named, and lifts it when healthy again', async () => {
    const error = await refusal(
      send(Subjects.fleet.reportHealth, { hostId: 'ro-l4-1', healthy: false, source: 'runtime' }),
    );
    expect(error.code).toBe(ErrorCode.BadRequest);
    const placed = await reserve(2, { dataCenterIds: ['EU-RO-1'] });
    const report = {
      hostId: 'ro-l4-1',
      healthy: false,
      source: 'runtime',
      code: 'XID',
      reason: 'Xid 79 on GPU 3',
      gpuIndex: 3,
    };
    expect(await send(Subjects.fleet.reportHealth, report)).toEqual({
      hostId: 'ro-l4-1',
      state: 'UNHEALTHY',
      changed: true,
    });
    expect(await hostEvents()).toEqual([
      {
        hostId: 'ro-l4-1',
        dataCenterId: 'EU-RO-1',
        state: 'UNHEALTHY',
        previousState: 'READY',
        reason: 'Xid 79 on GPU 3',
        healthCode: 'XID',
        drainDeadline: null,
        pods: [{ podId: placed.podId, ownerId: 'user-1', clusterId: null }],
      },
    ]);
    expect((await host('ro-l4-1')).health).toEqual({
      healthy: false,
      code: 'XID',
      reason: 'Xid 79 on GPU 3',
      source: 'runtime',
      gpuIndex: 3,
      since: new Date(NOW).toISOString(),
    });
    expect((await refusal(reserve(1, { dataCenterIds: ['EU-RO-1'] }))).code).toBe(
      ErrorCode.CapacityUnavailable,
    );
    expect(
      await send(Subjects.fleet.reportHealth, { hostId: 'ro-l4-1', healthy: true, source: 'runtime' }),
    ).toMatchObject({ state: 'READY' });
    expect((await hostEvents()).at(-1)).toMatchObject({
      state: 'READY',
      previousState: 'UNHEALTHY',
      healthCode: null,
    });
    expect((await reserve(1, { dataCenterIds: ['EU-RO-1'] })).hostId).toBe('ro-l4-1');
  });
});
