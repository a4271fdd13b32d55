import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Subjects, type Actor } from '@app/contracts';
import { EndpointCommands } from '../../../../../test/support/endpoint-autoscaler-commands.js';
import { BOB, type HandlerHarness } from '../../../../../test/support/handler-harness.js';
import { WorkersRepository } from '../../workers/workers.repository.js';
import { EndpointsRepository } from '../endpoints.repository.js';
import { ListEndpointsHandler } from './list-endpoints.handler.js';

/**
 * `endpoint.qry.list` over endpoint-autoscaler's real schema: endpoints made by its save and delete commands,
 * workers written as its control loop writes them.
 */

const CAROL: Actor = { userId: 'user-carol', kind: 'user' };

let commands: EndpointCommands;
let harness: HandlerHarness;

beforeAll(async () => {
  commands = await EndpointCommands.start('endpoint_list');
  harness = commands.harness;
  harness.register(
    new ListEndpointsHandler(
      new EndpointsRepository(harness.dataSource),
      new WorkersRepository(harness.dataSource),
    ),
  );
});

afterAll(async () => {
  await commands?.stop();
});

const at = (time: string) => ({ issuedAt: `2026-03-01T${time}:00.000Z` });

describe('listing endpoints', () => {
  it("answers the caller's live endpoints, oldest first, each with its own workers", async () => {
    const newer = await commands.create({ name: 'newer', workersMax: 2 }, at('11:00'));
    const older = await commands.create({ name: 'older', workersMax: 2 }, at('10:00'));
    const deleted = await commands.create({ name: 'deleted', workersMax: 0 }, at('10:30'));
    await harness.send(Subjects.endpoint.delete, { id: deleted.id }, at('10:45'));
    const bobs = await commands.create({ name: 'bobs' }, { ...at('09:00'), actor: BOB });
    await commands.addWorker(older.id, 'pod-older', 'RUNNING', 'RUNNING', '2026-03-01T10:05:00.000Z');
    await commands.addWorker(newer.id, 'pod-newer', 'EXITED', 'EXITED', '2026-03-01T11:05:00.000Z');
    await commands.addWorker(newer.id, 'pod-going', 'TERMINATED', 'RUNNING', '2026-03-01T11:06:00.000Z');

    expect(await harness.query(Subjects.endpoint.list, {})).toEqual([
      { ...older, workers: [{ podId: 'pod-older', desiredStatus: 'RUNNING', status: 'RUNNING' }] },
      { ...newer, workers: [{ podId: 'pod-newer', desiredStatus: 'EXITED', status: 'EXITED' }] },
    ]);
    expect(await harness.query(Subjects.endpoint.list, {}, { actor: BOB })).toEqual([
      { ...bobs, workers: [] },
    ]);
    expect(await harness.query(Subjects.endpoint.list, {}, { actor: CAROL })).toEqual([]);
  });
});
