import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Subjects, type Actor } from '@app/contracts';
import type { HandlerHarness, SendOptions } from '../../../../../test/support/handler-harness.js';
import { startQueueBrokerCommands } from '../../../../../test/support/queue-broker-commands.js';
import type { WorkerCommands } from '../../../../../test/support/queue-broker-workers.js';
import { whileHeld } from '../../../../../test/support/while-held.js';

/** `job.cmd.sweep` over queue-broker's real schema, against a job row another transaction holds. */

const SYSTEM: Actor = { userId: 'system', kind: 'system' };

let commands: WorkerCommands;
let harness: HandlerHarness;

beforeAll(async () => {
  commands = await startQueueBrokerCommands('sweep');
  harness = commands.harness;
});

afterAll(async () => {
  await commands?.stop();
});

describe('the sweep and rows other commands hold', () => {
  const ENDPOINT_LOCKED = 'ep-sweep-lock';
  const at15 = (minute: number): SendOptions => ({
    issuedAt: new Date(Date.UTC(2026, 2, 1, 15, minute)).toISOString(),
  });

  it('waits for a job another transaction holds and then ends it, rather than skipping it (a rebuild, where nothing holds it, ends it in this sweep too)', async () => {
    const accepted = await harness.send(
      Subjects.job.submit,
      { endpointId: ENDPOINT_LOCKED, sync: false, input: 3, policy: { ttl: 10_000 } },
      at15(0),
    );
    // While the row is held the sweep cannot have decided about it: it waits (SKIP LOCKED would have gone on).
    const held = await whileHeld(
      harness.dataSource,
      (manager) => manager.query('SELECT id FROM queue_broker.jobs WHERE id = $1 FOR UPDATE', [accepted.id]),
      () => harness.send(Subjects.job.sweep, { detectLostWorkers: false }, { ...at15(1), actor: SYSTEM }),
    );
    expect(held.waited).toBe(true);
    const sweep = held.end();
    // Ended TIMED_OUT (and, its ttl being over too, deleted by the same sweep).
    expect(await sweep).toMatchObject({ outlived: 1 });
    const changes = (await harness.events(Subjects.job.changed)).map((event) => event.payload);
    expect(changes).toContainEqual(expect.objectContaining({ jobId: accepted.id, status: 'TIMED_OUT' }));
  });
});

describe('workers the sweep finds lost', () => {
  const at16 = (minute: number): SendOptions => ({
    issuedAt: new Date(Date.UTC(2026, 2, 1, 16, minute)).toISOString(),
  });

  it("are entered in the audit trail of the account the register named, a machine's decision with its reason", async () => {
    const owner: Actor = { userId: 'u-owner', kind: 'system', reason: 'autoscaler: scale-up: queue' };
    await harness.send(
      Subjects.worker.register,
      { endpointId: 'ep-lost', workerId: 'w-lost-1' },
      { ...at16(0), actor: owner },
    );
    // Both call once, then stop; the second was never registered: its account is unknown, so it makes no entry.
    for (const workerId of ['w-lost-1', 'w-lost-2']) {
      await harness.send(
        Subjects.worker.ping,
        { endpointId: 'ep-lost', workerId, jobIds: [], unhealthy: false },
        at16(1),
      );
    }
    const sweep = await harness.send(
      Subjects.job.sweep,
      { detectLostWorkers: true },
      { ...at16(5), actor: SYSTEM },
    );
    expect(sweep).toMatchObject({ lostWorkers: 2 });
    const entries = (await harness.events(Subjects.audit.recorded)).map((event) => event.payload);
    expect(entries).toEqual([
      expect.objectContaining({
        accountId: 'u-owner',
        action: 'worker.lost',
        resourceType: 'worker',
        resourceId: 'w-lost-1',
        actor: expect.objectContaining({ kind: 'system', reason: expect.stringMatching(/^sweep: /) }),
        details: { endpointId: 'ep-lost' },
        at: at16(5).issuedAt,
      }),
    ]);
  });
});
