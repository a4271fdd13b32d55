import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import {
  PodStatus,
  Subjects,
  deriveId,
  type DrainExpiredEvent,
  type HostChangedEvent,
  type HostState,
  type PodView,
  type ReservePodCommand,
} from '@app/contracts';
import type { EventEnvelope } from '@app/messaging';
import { ALICE, InProcessCommands, type HandlerHarness } from '../../../../test/support/handler-harness.js';
import { PodLifecycleHandlers, SYSTEM, reserve } from '../../../../test/support/pod-lifecycle-handlers.js';
import { HostStateReactions } from './host-state.reaction.js';

/**
 * What a host's state does to its pods, over pod-lifecycle's real schema, from the scheduler's events through the
 * commands pod-lifecycle records for them (ids derived from the events) to the pods' rows and views: UNHEALTHY and
 * GONE put the live pods in ERROR; DRAINING tells users' pods (not workers) when they are stopped, READY or
 * CORDONED takes the notice back; the drain's deadline stops what is left, workers included.
 */

let app: PodLifecycleHandlers;
let pods: HandlerHarness;
let reactions: HostStateReactions;

beforeAll(async () => {
  app = await PodLifecycleHandlers.start('pod_host_state');
  pods = app.harness;
  reactions = new HostStateReactions(new InProcessCommands(pods).asBus());
});

afterAll(async () => {
  await app?.stop();
});

const DEADLINE = '2026-03-01T13:00:00.000Z';
let minute = 0;
const nextTime = () => `2026-03-01T12:${String(++minute).padStart(2, '0')}:00.000Z`;

function envelope<T>(subject: string, payload: T): EventEnvelope<T> {
  return { eventId: randomUUID(), subject, occurredAt: nextTime(), correlationId: randomUUID(), payload };
}

const context = <T>(event: EventEnvelope<T>) => ({
  event,
  manager: pods.dataSource.manager,
  emit: () => Promise.reject(new Error('the reaction emits nothing')),
});

/** The pods each host holds, as the scheduler's reservations list them in its events. */
const placedOn = new Map<string, string[]>();
const heldOn = (hostId: string) =>
  (placedOn.get(hostId) ?? []).map((podId) => ({ podId, ownerId: ALICE.userId, clusterId: null }));

/** The scheduler's `fleet.evt.host-changed`, as pod-lifecycle's consumer delivers it (the host's pods listed). */
async function hostChanged(
  hostId: string,
  state: HostState,
  previousState: HostState,
  extra: Partial<HostChangedEvent> = {},
  listed?: PodView[],
): Promise<EventEnvelope<HostChangedEvent>> {
  const event = envelope<HostChangedEvent>(Subjects.fleet.hostChanged, {
    hostId,
    dataCenterId: 'EU-RO-1',
    state,
    previousState,
    pods: listed
      ? listed.map((pod) => ({ podId: pod.id, ownerId: pod.userId, clusterId: null }))
      : heldOn(hostId),
    ...extra,
  });
  await reactions.hostChanged(context(event));
  return event;
}

async function drainExpired(hostId: string): Promise<EventEnvelope<DrainExpiredEvent>> {
  const event = envelope<DrainExpiredEvent>(Subjects.fleet.drainExpired, { hostId, pods: heldOn(hostId) });
  await reactions.drainExpired(context(event));
  return event;
}

/** A pod of ALICE's placed on `hostId`, RUNNING as the runtime reports it; a worker of endpoint `worker` if given. */
async function podOn(hostId: string, name: string, worker?: string): Promise<PodView> {
  app.scheduler.answer(Subjects.placement.reserve, (command: ReservePodCommand) => ({
    ...reserve(command),
    hostId,
  }));
  try {
    const pod = worker
      ? await app.createPod(
          name,
          { env: { RUNPOD_ENDPOINT_ID: worker } },
          { actor: { userId: ALICE.userId, kind: 'system' } },
        )
      : await app.createPod(name);
    placedOn.set(hostId, [...(placedOn.get(hostId) ?? []), pod.id]);
    const generation = await app.generation(pod.id);
    await pods.send(
      Subjects.pod.observe,
      { podId: pod.id, generation, status: PodStatus.Running },
      { actor: SYSTEM },
    );
    return get(pod.id);
  } finally {
    app.scheduler.answer(Subjects.placement.reserve, reserve);
  }
}

const get = (podId: string) => pods.query(Subjects.pod.get, { podId });
const processed = async (commandId: string) => {
  const rows = await pods.dataSource.query<{ subject: string; outcome: { ok: boolean; value: unknown } }[]>(
    'SELECT subject, outcome FROM pod_lifecycle.processed_commands WHERE command_id = $1',
    [commandId],
  );
  return rows[0] ?? null;
};

describe('a host found unhealthy or gone', () => {
  it('puts its live pods, workers included, in ERROR with HOST_UNHEALTHY and the report; data kept', async () => {
    const user = await podOn('h-sick', 'p-user');
    const worker = await podOn('h-sick', 'p-worker', 'ep-1');
    const stopped = await podOn('h-sick', 'p-stopped');
    await pods.send(Subjects.pod.stop, { podId: stopped.id });
    const elsewhere = await podOn('h-fine', 'p-elsewhere');
    const events = (await pods.events(Subjects.pod.statusChanged)).length;

    const event = await hostChanged('h-sick', 'UNHEALTHY', 'READY', {
      reason: 'Xid 79 on GPU 3: fell off the bus',
      healthCode: 'XID',
    });
    const reason = 'HOST_UNHEALTHY: host h-sick is unhealthy (XID): Xid 79 on GPU 3: fell off the bus';
    expect(await processed(deriveId(event.eventId, 'host-lost'))).toEqual({
      subject: Subjects.pod.hostLost,
      outcome: { ok: true, value: { podIds: [user.id, worker.id].sort() } },
    });
    for (const pod of [user, worker]) {
      expect(await get(pod.id)).toMatchObject({
        status: PodStatus.Error,
        desiredStatus: PodStatus.Exited,
        statusReason: reason,
        machineId: 'h-sick',
        hostNotice: null,
      });
    }
    expect(await get(stopped.id)).toMatchObject({
      status: PodStatus.Exited,
      statusReason: 'stopped by the user',
    });
    expect(await get(elsewhere.id)).toMatchObject({ status: PodStatus.Running, statusReason: null });
    const changed = (await pods.events(Subjects.pod.statusChanged)).slice(events).map((e) => e.payload);
    expect(changed).toEqual(
      [user, worker]
        .sort((a, b) => (a.id < b.id ? -1 : 1))
        .map((pod) => expect.objectContaining({ podId: pod.id, status: PodStatus.Error })),
    );

    // Heard again (a redelivery): the same command, answered from its record; nothing changes.
    const { wrote } = await pods.wrote(() => reactions.hostChanged(context(event)));
    expect(wrote).toEqual([]);
  });

  it('says HOST_GONE for a host that left the fleet', async () => {
    const pod = await podOn('h-gone', 'p-gone');
    await hostChanged('h-gone', 'GONE', 'DRAINING', { reason: 'removed by an operator' });
    expect(await get(pod.id)).toMatchObject({
      status: PodStatus.Error,
      statusReason: 'HOST_GONE: host h-gone left the fleet: removed by an operator',
    });
  });
});

describe('a draining host', () => {
  it("tells its users' live pods (not workers) when they are stopped, and takes it back when called off", async () => {
    const user = await podOn('h-drain', 'p-told');
    const worker = await podOn('h-drain', 'p-worker-untold', 'ep-2');
    const other = await podOn('h-other', 'p-other');
    const drained = await hostChanged('h-drain', 'DRAINING', 'READY', {
      reason: 'kernel upgrade',
      drainDeadline: DEADLINE,
    });
    const notice = `HOST_DRAINING: host h-drain drains: kernel upgrade; stopped at ${DEADLINE}`;
    expect(await processed(deriveId(drained.eventId, 'host-notice'))).toMatchObject({
      subject: Subjects.pod.hostNotice,
      outcome: { ok: true, value: { noticed: [user.id], cleared: [] } },
    });
    expect(await get(user.id)).toMatchObject({
      status: PodStatus.Running,
      statusReason: null,
      hostNotice: notice,
      stopDeadline: DEADLINE,
    });
    expect(await get(worker.id)).toMatchObject({ hostNotice: null, stopDeadline: null });
    expect(await get(other.id)).toMatchObject({ hostNotice: null });

    // The notice outlives a status change of the pod (a stop by its user).
    await pods.send(Subjects.pod.stop, { podId: user.id });
    expect(await get(user.id)).toMatchObject({ status: PodStatus.Exited, hostNotice: notice });

    const called = await hostChanged('h-drain', 'CORDONED', 'DRAINING');
    expect(await processed(deriveId(called.eventId, 'host-notice'))).toMatchObject({
      outcome: { ok: true, value: { noticed: [], cleared: [user.id] } },
    });
    expect(await get(user.id)).toMatchObject({ hostNotice: null, stopDeadline: null });
  });

  it('records nothing for a change that concerns no drain (READY to CORDONED)', async () => {
    const event = await hostChanged('h-cordon', 'CORDONED', 'READY');
    expect(await processed(deriveId(event.eventId, 'host-notice'))).toBeNull();
    expect(await processed(deriveId(event.eventId, 'host-lost'))).toBeNull();
  });

  it("stops every live pod left at the drain's deadline, workers included, with HOST_DRAINED", async () => {
    const user = await podOn('h-expire', 'p-expire-user');
    const worker = await podOn('h-expire', 'p-expire-worker', 'ep-3');
    await hostChanged('h-expire', 'DRAINING', 'READY', { reason: 'rack move', drainDeadline: DEADLINE });
    const event = await drainExpired('h-expire');
    expect(await processed(deriveId(event.eventId, 'host-drained'))).toEqual({
      subject: Subjects.pod.hostDrained,
      outcome: { ok: true, value: { podIds: [user.id, worker.id].sort() } },
    });
    for (const pod of [user, worker]) {
      expect(await get(pod.id)).toMatchObject({
        status: PodStatus.Exited,
        desiredStatus: PodStatus.Exited,
        statusReason: "HOST_DRAINED: host h-expire was drained: stopped at the drain's deadline",
        hostNotice: null,
        stopDeadline: null,
      });
    }
    // A later start is a resume on that host, which the scheduler answers (here: the stand-in admits it).
    const started = await pods.send(Subjects.pod.start, { podId: user.id });
    expect(started).toMatchObject({ status: PodStatus.Starting, statusReason: null });
    const reserves = app.scheduler.sent(Subjects.placement.reserve).filter((c) => c.podId === user.id);
    expect(reserves.at(-1)).toMatchObject({ hostId: 'h-expire' });
  });
});
