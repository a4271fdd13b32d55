import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { appDataSourceOptions } from '@app/database';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/test-database.js';
import { DATA_SOURCE_SPEC } from '../data-source.js';
import { WorkerEntity } from '../workers/worker.entity.js';
import { WorkersRepository } from '../workers/workers.repository.js';
import { ScalingEventEntity } from './scaling-event.entity.js';
import { ScalingEventsRepository } from './scaling-events.repository.js';
import { EndpointWaitReasonsRepository } from './endpoint-wait-reasons.repository.js';
import { ScalingStateRepository, noWrites } from './scaling-state.repository.js';

/**
 * The control loop's state against real Postgres and the real migrations: a step's rows and events commit
 * together or not at all, and the back-offs a new leader needs are read back from the failed events.
 */

let db: TestDatabase;
let dataSource: DataSource;
let state: ScalingStateRepository;
let events: ScalingEventsRepository;
let workers: WorkersRepository;

const NOW = new Date('2026-11-24T12:00:00.000Z');
const ago = (ms: number) => new Date(NOW.getTime() - ms);

function worker(endpointId: string): WorkerEntity {
  return Object.assign(new WorkerEntity(), {
    podId: randomUUID(),
    endpointId,
    createCommandId: randomUUID(),
    created: false,
    desired: 'RUNNING',
    podStatus: null,
    actionSeq: 0,
    desiredSince: NOW,
    idleSince: null,
    createdAt: NOW,
  } satisfies WorkerEntity);
}

function failed(endpointId: string, at: Date, inputs: ScalingEventEntity['inputs']): ScalingEventEntity {
  return Object.assign(new ScalingEventEntity(), {
    id: randomUUID(),
    endpointId,
    at,
    action: 'failed',
    podId: null,
    workersBefore: 0,
    workersDesired: 0,
    reason: 'test',
    inputs,
  } satisfies ScalingEventEntity);
}

beforeAll(async () => {
  db = await createTestDatabase('scaling_state', { apps: ['endpoint-autoscaler'] });
  dataSource = new DataSource(appDataSourceOptions(DATA_SOURCE_SPEC, db.url, 2));
  await dataSource.initialize();
  workers = new WorkersRepository(dataSource);
  events = new ScalingEventsRepository(dataSource);
  state = new ScalingStateRepository(dataSource, workers, events);
});

afterAll(async () => {
  await dataSource?.destroy();
  await db?.drop();
});

describe('ScalingStateRepository.commit', () => {
  it('writes the rows and the events that explain them', async () => {
    const endpointId = `ep-${randomUUID()}`;
    const row = worker(endpointId);
    const event = failed(endpointId, NOW, {});
    await state.commit({ ...noWrites(), inserted: [row], events: [event] });
    expect((await workers.listByEndpoint(endpointId)).map((w) => w.podId)).toEqual([row.podId]);
    expect((await events.listByEndpoint(endpointId)).map((e) => e.id)).toEqual([event.id]);

    row.desired = 'TERMINATED';
    row.actionSeq = 1;
    await state.commit({ ...noWrites(), saved: [row] });
    expect(await workers.listByEndpoint(endpointId)).toEqual([
      expect.objectContaining({ desired: 'TERMINATED', actionSeq: 1 }),
    ]);
    await state.commit({ ...noWrites(), removed: [row.podId] });
    expect(await workers.listByEndpoint(endpointId)).toEqual([]);
  });

  it('writes nothing when one statement fails: no event tells of a change the table does not have', async () => {
    const endpointId = `ep-${randomUUID()}`;
    const existing = worker(endpointId);
    await state.commit({ ...noWrites(), inserted: [existing] });
    const fresh = worker(endpointId);
    const writes = { ...noWrites(), inserted: [fresh, existing], events: [failed(endpointId, NOW, {})] };
    await expect(state.commit(writes)).rejects.toThrow(/duplicate key/);
    expect((await workers.listByEndpoint(endpointId)).map((w) => w.podId)).toEqual([existing.podId]);
    expect(await events.listByEndpoint(endpointId)).toEqual([]);
  });
});

describe('ScalingEventsRepository.recentRefusals', () => {
  it('reads the latest refused create and the latest spend-limit refusal of each endpoint since a time', async () => {
    const endpointId = `ep-${randomUUID()}`;
    const other = `ep-${randomUUID()}`;
    const writes = {
      ...noWrites(),
      events: [
        failed(endpointId, ago(40_000), { refusedCommand: 'create', errorCode: 'CAPACITY_UNAVAILABLE' }),
        failed(endpointId, ago(3_000), { refusedCommand: 'create', errorCode: 'CAPACITY_UNAVAILABLE' }),
        failed(endpointId, ago(2_000), { refusedCommand: 'start', errorCode: 'SPEND_LIMIT_REACHED' }),
        // A pod terminated outside the autoscaler is a failed event too, but no refusal.
        failed(endpointId, ago(1_000), {}),
        failed(other, ago(500), { refusedCommand: 'create', errorCode: 'SPEND_LIMIT_REACHED' }),
      ],
    };
    await state.commit(writes);
    // One statement for both (and for an endpoint without any: absent).
    const quiet = `ep-${randomUUID()}`;
    const recent = await events.recentRefusals([endpointId, other, quiet], ago(30_000));
    expect(Object.fromEntries(recent)).toEqual({
      [endpointId]: { createRefusedAt: ago(3_000), spendLimitRefusedAt: ago(2_000) },
      [other]: { createRefusedAt: ago(500), spendLimitRefusedAt: ago(500) },
    });
    // A failed event that is no refusal counts for the endpoint, with nothing refused.
    expect((await events.recentRefusals([endpointId], ago(1_500))).get(endpointId)).toEqual({
      createRefusedAt: null,
      spendLimitRefusedAt: null,
    });
  });
});

describe("the tick's batched reads", () => {
  it("reads each endpoint's recent worker failures, and every wait reason, in one statement each", async () => {
    const crashing = `ep-${randomUUID()}`;
    const hostLost = `ep-${randomUUID()}`;
    const terminate = (endpointId: string, at: Date, reason: string, podId: string) =>
      Object.assign(failed(endpointId, at, {}), { action: 'terminate', reason, podId });
    await state.commit({
      ...noWrites(),
      events: [
        terminate(crashing, ago(20_000), 'worker pod failed: exit code 1', 'pod-a'),
        terminate(crashing, ago(10_000), 'worker exited by itself: exit code 0', 'pod-b'),
        terminate(hostLost, ago(5_000), 'worker pod failed: HOST_LOST: gone', 'pod-c'),
      ],
    });
    const reasons = new EndpointWaitReasonsRepository(dataSource);
    const failures = await reasons.recentWorkerFailures([crashing, hostLost], ago(60_000));
    expect(Object.fromEntries(failures)).toEqual({
      [crashing]: {
        count: 2,
        firstAt: ago(20_000),
        lastAt: ago(10_000),
        lastPodId: 'pod-b',
        lastReason: 'exit code 0',
      },
    });
    const reason = { code: 'WORKERS_CRASH_LOOPING' as const, message: 'm', since: ago(20_000).toISOString() };
    await reasons.save(crashing, reason, NOW);
    expect((await reasons.currentAll()).get(crashing)).toEqual(reason);
    expect(await reasons.current(crashing)).toEqual(reason);
  });
});
