import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ErrorCode, Subjects, type Actor } from '@app/contracts';
import { EndpointCommands } from '../../../../../test/support/endpoint-autoscaler-commands.js';
import { BOB, refusalOf, type HandlerHarness } from '../../../../../test/support/handler-harness.js';
import { EndpointAutoscalerConfig } from '../../endpoint-autoscaler.config.js';
import { EndpointWaitReasonsRepository } from '../../scaling/endpoint-wait-reasons.repository.js';
import { ScalingEventEntity } from '../../scaling/scaling-event.entity.js';
import { ScalingEventsRepository } from '../../scaling/scaling-events.repository.js';
import { ScalingThrottles } from '../../scaling/scaling-throttles.js';
import { WorkersRepository } from '../../workers/workers.repository.js';
import { EndpointsRepository } from '../endpoints.repository.js';
import { GetEndpointHandler } from './get-endpoint.handler.js';

/**
 * `endpoint.qry.get` over endpoint-autoscaler's real schema: endpoints made by its save and delete commands,
 * workers written as its control loop writes them.
 */

const SYSTEM: Actor = { userId: 'system', kind: 'system' };

let commands: EndpointCommands;
let harness: HandlerHarness;
let events: ScalingEventsRepository;
let waitReasons: EndpointWaitReasonsRepository;

beforeAll(async () => {
  commands = await EndpointCommands.start('endpoint_get');
  harness = commands.harness;
  events = new ScalingEventsRepository(harness.dataSource);
  waitReasons = new EndpointWaitReasonsRepository(harness.dataSource);
  harness.register(
    new GetEndpointHandler(
      new EndpointsRepository(harness.dataSource),
      new WorkersRepository(harness.dataSource),
      new ScalingThrottles(events, new EndpointAutoscalerConfig()),
      waitReasons,
    ),
  );
});

afterAll(async () => {
  await commands?.stop();
});

const get = (id: string, actor = {}) => harness.query(Subjects.endpoint.get, { id }, actor);

describe('getting an endpoint', () => {
  it('answers the endpoint as saved, with its workers not being terminated, oldest first', async () => {
    const endpoint = await commands.create({ workersMax: 3 }, { issuedAt: '2026-03-01T10:00:00.000Z' });
    await commands.addWorker(endpoint.id, 'pod-b', 'RUNNING', 'RUNNING', '2026-03-01T10:02:00.000Z');
    await commands.addWorker(endpoint.id, 'pod-a', 'EXITED', 'EXITED', '2026-03-01T10:01:00.000Z');
    await commands.addWorker(endpoint.id, 'pod-c', 'TERMINATED', 'RUNNING', '2026-03-01T10:00:30.000Z');
    await commands.addWorker(endpoint.id, 'pod-d', 'RUNNING', null, '2026-03-01T10:03:00.000Z');
    expect(await get(endpoint.id)).toEqual({
      ...endpoint,
      createdAt: '2026-03-01T10:00:00.000Z',
      waitReason: null,
      workers: [
        { podId: 'pod-a', desiredStatus: 'EXITED', status: 'EXITED' },
        { podId: 'pod-b', desiredStatus: 'RUNNING', status: 'RUNNING' },
        { podId: 'pod-d', desiredStatus: 'RUNNING', status: null },
      ],
    });
  });

  it("answers the control loop's wait reason while it holds, and null once it is cleared", async () => {
    const endpoint = await commands.create({ workersMax: 1 });
    const reason = {
      code: 'WORKER_STARTING' as const,
      message: 'a worker is pulling its image',
      since: '2026-03-01T10:00:05.000Z',
      details: { phase: 'PULLING_IMAGE', podId: 'pod-x', starting: 1 },
    };
    await waitReasons.save(endpoint.id, reason, new Date('2026-03-01T10:00:06.000Z'));
    expect((await get(endpoint.id)).waitReason).toEqual(reason);
    await waitReasons.save(endpoint.id, null, new Date('2026-03-01T10:00:09.000Z'));
    expect((await get(endpoint.id)).waitReason).toBeNull();
  });

  it('answers an endpoint without workers with an empty list', async () => {
    const endpoint = await commands.create();
    expect((await get(endpoint.id)).workers).toEqual([]);
  });

  it("refuses another user's endpoint (403), which a system actor reads", async () => {
    const endpoint = await commands.create({ name: 'private' });
    expect(await refusalOf(get(endpoint.id, { actor: BOB }))).toMatchObject({
      code: ErrorCode.Forbidden,
      message: expect.stringContaining('another user'),
    });
    expect(await get(endpoint.id, { actor: SYSTEM })).toMatchObject({ id: endpoint.id, name: 'private' });
  });

  it('refuses an unknown id and a deleted endpoint (404)', async () => {
    expect(await refusalOf(get('ep-missing'))).toMatchObject({
      code: ErrorCode.NotFound,
      message: expect.stringContaining('ep-missing'),
    });
    const deleted = await commands.create({ workersMax: 0 });
    await harness.send(Subjects.endpoint.delete, { id: deleted.id });
    expect(await refusalOf(get(deleted.id))).toMatchObject({ code: ErrorCode.NotFound });
    expect(await refusalOf(get(deleted.id, { actor: SYSTEM }))).toMatchObject({ code: ErrorCode.NotFound });
  });
});

describe("why an endpoint's workers are held back (throttled, what the gateway's /health shows)", () => {
  it('is its latest refused create or resume none went through since; absent when there is none', async () => {
    const endpoint = await commands.create({ name: 'throttled' });
    expect(await get(endpoint.id)).not.toHaveProperty('throttled');
    const since = new Date(Date.now() - 20_000).toISOString();
    const refused = Object.assign(new ScalingEventEntity(), {
      id: `evt-${endpoint.id}`,
      endpointId: endpoint.id,
      at: new Date(Date.now() - 1_000),
      action: 'failed',
      podId: 'pod-refused',
      workersBefore: 0,
      workersDesired: 0,
      reason: 'worker not created: quota exceeded',
      inputs: { refusedCommand: 'create', errorCode: ErrorCode.QuotaExceeded, waitingSince: since },
    } satisfies ScalingEventEntity);
    await harness.dataSource.transaction((manager) => events.insert([refused], manager));
    expect((await get(endpoint.id)).throttled).toEqual({
      code: ErrorCode.QuotaExceeded,
      message: 'worker not created: quota exceeded',
      since,
    });
  });
});
