import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { DomainError, ErrorCode, Subjects, type CapacityRow, type FleetCapacityView } from '@app/contracts';
import { FLEET_NOW as NOW, FleetKit } from '../../../../test/support/cluster-scheduler-fleet.js';
import { SMALL_FLEET, SchedulerCommands } from '../../../../test/support/cluster-scheduler-commands.js';
import type { CommandBus } from '@app/messaging';
import { InProcessCommands } from '../../../../test/support/handler-harness.js';
import type { LeaderTimers } from '../leader-timers.js';
import { DrainDeadlines } from './drain-deadlines.js';
import { HostsRepository } from './hosts.repository.js';

/**
 * A drain and its deadline (the leader's check and fleet.cmd.expire-drains), removal, and the operators' views
 * (capacity, hosts by page) over cluster-scheduler's real schema and SMALL_FLEET (L4: tx-l4-1 of 4 GPUs and tx-l4-2
 * of 2 in US-TX-3, ro-l4-1 of 8 in EU-RO-1; A40: ro-a40-1 of 4; cpu3g: tx-cpu-1 of 2 slots, ro-cpu-1 of 4).
 */
const L4 = 'NVIDIA L4';
let scheduler: SchedulerCommands;
let fleet: FleetKit;

beforeAll(async () => {
  scheduler = await SchedulerCommands.start('scheduler_fleet_drain', { fleet: SMALL_FLEET });
  fleet = new FleetKit(scheduler.harness);
});

afterAll(async () => {
  await scheduler?.stop();
});

afterEach(() => fleet.reset());

const send: FleetKit['send'] = (subject, payload, at) => fleet.send(subject, payload, at);
const query: FleetKit['query'] = (subject, payload) => fleet.query(subject, payload);
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

describe('drain', () => {
  it('tells who runs on the host, reports the deadline once with the pods left, then lets it be removed', async () => {
    const placed = await reserve(2, { gpuTypeId: 'NVIDIA A40' });
    expect(placed.hostId).toBe('ro-a40-1');
    const drainedAt = NOW - 120_000;
    expect(await send(Subjects.fleet.drain, { hostId: 'ro-a40-1', deadlineSeconds: 60 }, drainedAt)).toEqual({
      hostId: 'ro-a40-1',
      state: 'DRAINING',
      changed: true,
    });
    const pod = { podId: placed.podId, ownerId: 'user-1', clusterId: null };
    const deadline = new Date(drainedAt + 60_000).toISOString();
    expect(await hostEvents()).toEqual([
      {
        hostId: 'ro-a40-1',
        dataCenterId: 'EU-RO-1',
        state: 'DRAINING',
        previousState: 'READY',
        reason: null,
        healthCode: null,
        drainDeadline: deadline,
        pods: [pod],
      },
    ]);
    expect(await host('ro-a40-1')).toMatchObject({
      drainDeadline: deadline,
      drained: false,
      podsOnHost: [{ podId: placed.podId, gpuCount: 2 }],
    });

    // The leader's check records the command only once a deadline is due; the command decides which.
    const recorded: string[] = [];
    const bus = new InProcessCommands(scheduler.harness);
    const commands = {
      execute: (subject: string, payload: unknown, actor: never) => {
        recorded.push(subject);
        return bus.execute(subject as typeof Subjects.fleet.expireDrains, payload, actor);
      },
    } as unknown as CommandBus;
    const timers = { every: () => undefined } as unknown as LeaderTimers;
    const deadlines = new DrainDeadlines(
      commands,
      scheduler.config,
      timers,
      new HostsRepository(scheduler.harness.dataSource),
    );
    expect(await deadlines.check(new Date(drainedAt + 30_000))).toBe(false);
    expect(recorded).toEqual([]);
    expect(await send(Subjects.fleet.expireDrains, {}, drainedAt + 30_000)).toEqual({ hostIds: [] });
    expect(await deadlines.check(new Date(drainedAt + 61_000))).toBe(true); // applied at NOW, after the deadline
    expect(recorded).toEqual([Subjects.fleet.expireDrains]);
    expect((await scheduler.harness.events(Subjects.fleet.drainExpired)).map((e) => e.payload)).toEqual([
      { hostId: 'ro-a40-1', pods: [pod] },
    ]);
    expect(await send(Subjects.fleet.expireDrains, {}, NOW + 60_000)).toEqual({ hostIds: [] });
    expect(await deadlines.check(new Date(NOW + 60_000))).toBe(false);
    expect(await host('ro-a40-1')).toMatchObject({ state: 'DRAINING', drainDeadline: deadline });

    await send(Subjects.placement.release, { podId: placed.podId });
    expect(await host('ro-a40-1')).toMatchObject({ drained: true, pods: 0 });
    expect(await send(Subjects.fleet.remove, { hostId: 'ro-a40-1' })).toMatchObject({ state: 'GONE' });
    expect((await hostEvents()).at(-1)).toMatchObject({ state: 'GONE', previousState: 'DRAINING', pods: [] });
  });

  it('uses FLEET_DRAIN_DEADLINE_S when the drain names no deadline; a second drain changes nothing', async () => {
    await send(Subjects.fleet.drain, { hostId: 'tx-l4-2' });
    expect(await send(Subjects.fleet.drain, { hostId: 'tx-l4-2', deadlineSeconds: 5 })).toMatchObject({
      changed: false,
    });
    expect((await host('tx-l4-2')).drainDeadline).toBe(new Date(NOW + 3600_000).toISOString());
  });
});

describe('views', () => {
  const row = (rows: CapacityRow[], dc: string, type: string) =>
    rows.find((r) => r.dataCenterId === dc && (r.gpuTypeId ?? r.cpuTypeId) === type);

  it('sums capacity per data center and type: total = allocated + free + unavailable', async () => {
    await reserve(1, { hostId: 'tx-l4-1' });
    await send(Subjects.fleet.cordon, { hostId: 'tx-l4-2' });
    await send(Subjects.fleet.reportHealth, {
      hostId: 'ro-cpu-1',
      healthy: false,
      source: 'operator',
      code: 'OPERATOR',
    });
    const capacity: FleetCapacityView = await query(Subjects.fleet.capacity, {});
    expect(row(capacity.gpus, 'US-TX-3', L4)).toEqual({
      dataCenterId: 'US-TX-3',
      gpuTypeId: L4,
      cpuTypeId: null,
      hosts: 2,
      total: 6,
      allocated: 1,
      free: 3,
      unavailable: 2,
    });
    expect(row(capacity.cpus, 'EU-RO-1', 'cpu3g')).toMatchObject({
      hosts: 1,
      total: 4,
      free: 0,
      unavailable: 4,
    });
    for (const r of [...capacity.gpus, ...capacity.cpus]) {
      expect(r.total).toBe(r.allocated + r.free + r.unavailable);
    }
    expect(capacity.hosts).toEqual({ READY: 4, CORDONED: 1, DRAINING: 0, UNHEALTHY: 1, GONE: 0 });
  });

  it('lists hosts by id with filters, one page at a time', async () => {
    await send(Subjects.fleet.cordon, { hostId: 'ro-l4-1' });
    const ids = async (payload: object) => {
      const page = await query(Subjects.fleet.listHosts, payload);
      return { ids: page.hosts.map((h) => h.id), next: page.next };
    };
    expect(await ids({ dataCenterId: 'US-TX-3' })).toEqual({
      ids: ['tx-cpu-1', 'tx-l4-1', 'tx-l4-2'],
      next: null,
    });
    expect(await ids({ gpuTypeId: L4 })).toEqual({ ids: ['ro-l4-1', 'tx-l4-1', 'tx-l4-2'], next: null });
    expect(await ids({ state: 'CORDONED' })).toEqual({ ids: ['ro-l4-1'], next: null });
    expect(await ids({ source: 'api' })).toEqual({ ids: [], next: null });
    expect(await ids({ limit: 4 })).toEqual({
      ids: ['ro-a40-1', 'ro-cpu-1', 'ro-l4-1', 'tx-cpu-1'],
      next: 'tx-cpu-1',
    });
    expect(await ids({ limit: 4, after: 'tx-cpu-1' })).toEqual({ ids: ['tx-l4-1', 'tx-l4-2'], next: null });
    expect((await refusal(host('nope'))).code).toBe(ErrorCode.NotFound);
  });
});
