import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { Subjects, deriveId, type HostChangedEvent, type HostState } from '@app/contracts';
import type { EventEnvelope } from '@app/messaging';
import { HandlerHarness, InProcessCommands } from '../../../../../test/support/handler-harness.js';
import { DATA_SOURCE_SPEC } from '../../data-source.js';
import { DrainingPodsRepository } from '../draining-pods.repository.js';
import { DrainWorkersHandler } from './drain-workers.handler.js';

/**
 * The autoscaler's reaction to a host's drain, over its real schema: `fleet.evt.host-changed` to DRAINING records
 * `endpoint.cmd.drain-workers` (an id derived from the event), which marks the host's pods that are no cluster
 * member; the control loop reads the marks with its workers (`draining`). Leaving DRAINING takes the marks away;
 * changes that concern no drain record nothing.
 */

let harness: HandlerHarness;
let handler: DrainWorkersHandler;
let draining: DrainingPodsRepository;

beforeAll(async () => {
  harness = await HandlerHarness.start('drain_workers', 'endpoint-autoscaler', DATA_SOURCE_SPEC);
  draining = new DrainingPodsRepository(harness.dataSource);
  handler = new DrainWorkersHandler(draining, new InProcessCommands(harness).asBus());
  harness.register(handler);
});

afterAll(async () => {
  await harness?.stop();
});

let second = 0;

async function hostChanged(
  hostId: string,
  state: HostState,
  previousState: HostState,
  pods: { podId: string; clusterId?: string }[] = [],
): Promise<EventEnvelope<HostChangedEvent>> {
  const event: EventEnvelope<HostChangedEvent> = {
    eventId: randomUUID(),
    subject: Subjects.fleet.hostChanged,
    occurredAt: new Date(Date.UTC(2026, 2, 1, 9, 0, ++second)).toISOString(),
    correlationId: randomUUID(),
    payload: {
      hostId,
      dataCenterId: 'EU-RO-1',
      state,
      previousState,
      reason: 'kernel upgrade',
      drainDeadline: state === 'DRAINING' ? '2026-03-01T10:00:00.000Z' : null,
      pods: pods.map((pod) => ({ ownerId: 'user-alice', clusterId: null, ...pod })),
    },
  };
  await handler.heard({
    event,
    manager: harness.dataSource.manager,
    emit: () => Promise.reject(new Error('the reaction emits nothing')),
  });
  return event;
}

const outcome = async (event: EventEnvelope<HostChangedEvent>) => {
  const rows = await harness.dataSource.query<{ subject: string; outcome: unknown }[]>(
    'SELECT subject, outcome FROM endpoint_autoscaler.processed_commands WHERE command_id = $1',
    [deriveId(event.eventId, 'drain-workers')],
  );
  return rows[0] ?? null;
};
const marks = async () =>
  harness.dataSource.query<{ pod_id: string; host_id: string; since: Date; deadline: Date | null }[]>(
    'SELECT pod_id, host_id, since, deadline FROM endpoint_autoscaler.draining_pods ORDER BY pod_id',
  );

describe('endpoint.cmd.drain-workers', () => {
  it("marks a draining host's pods (not cluster members), and takes the marks away when the drain is called off", async () => {
    const drain = await hostChanged('h-1', 'DRAINING', 'READY', [
      { podId: 'w-2' },
      { podId: 'w-1' },
      { podId: 'member-0', clusterId: 'cluster-1' },
    ]);
    expect(await outcome(drain)).toEqual({
      subject: Subjects.endpoint.drainWorkers,
      outcome: { ok: true, value: { marked: ['w-1', 'w-2'], unmarked: [] } },
    });
    expect(await marks()).toEqual(
      ['w-1', 'w-2'].map((pod_id) => ({
        pod_id,
        host_id: 'h-1',
        since: new Date(drain.occurredAt),
        deadline: new Date('2026-03-01T10:00:00.000Z'),
      })),
    );
    expect(await draining.draining(['w-1', 'w-3', 'member-0'])).toEqual(new Set(['w-1']));

    // Heard again (a redelivery): the same command, answered from its record.
    const { wrote } = await harness.wrote(() =>
      handler.heard({ event: drain, manager: harness.dataSource.manager, emit: () => Promise.resolve() }),
    );
    expect(wrote).toEqual([]);

    // A cordon or an uncordon of another host concerns no drain: nothing is recorded.
    const cordon = await hostChanged('h-2', 'CORDONED', 'READY', [{ podId: 'w-9' }]);
    expect(await outcome(cordon)).toBeNull();

    const calledOff = await hostChanged('h-1', 'READY', 'DRAINING', [{ podId: 'w-1' }, { podId: 'w-2' }]);
    expect(await outcome(calledOff)).toMatchObject({
      outcome: { ok: true, value: { marked: [], unmarked: ['w-1', 'w-2'] } },
    });
    expect(await marks()).toEqual([]);
  });

  it('drops the marks of a draining host that is lost (its workers fail and are replaced as failed ones)', async () => {
    await hostChanged('h-3', 'DRAINING', 'CORDONED', [{ podId: 'w-30' }]);
    const lost = await hostChanged('h-3', 'UNHEALTHY', 'DRAINING', [{ podId: 'w-30' }]);
    expect(await outcome(lost)).toMatchObject({
      outcome: { ok: true, value: { marked: [], unmarked: ['w-30'] } },
    });
    expect(await draining.draining(['w-30'])).toEqual(new Set());
  });

  it('keeps since when a draining host is announced again with fewer pods, and lets the others go', async () => {
    const first = await hostChanged('h-4', 'DRAINING', 'READY', [{ podId: 'w-40' }, { podId: 'w-41' }]);
    // Healthy again after an unhealthy spell, still draining: its shown state is DRAINING once more.
    const again = await hostChanged('h-4', 'DRAINING', 'UNHEALTHY', [{ podId: 'w-41' }]);
    expect(await outcome(again)).toMatchObject({
      outcome: { ok: true, value: { marked: ['w-41'], unmarked: ['w-40'] } },
    });
    expect(await marks()).toEqual([
      expect.objectContaining({ pod_id: 'w-41', host_id: 'h-4', since: new Date(first.occurredAt) }),
    ]);
  });

  it('refuses a deadline that is no ISO time (as every payload, validated on receipt)', async () => {
    const refusal = await harness.refusal(() =>
      harness.send(Subjects.endpoint.drainWorkers, {
        hostId: 'h-5',
        state: 'DRAINING',
        drainDeadline: 'tomorrow',
        podIds: ['w-50'],
      }),
    );
    expect(refusal).toMatchObject({ code: 'VALIDATION_FAILED', wrote: [] });
  });
});
