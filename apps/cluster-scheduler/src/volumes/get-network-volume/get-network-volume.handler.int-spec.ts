import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ErrorCode, Subjects } from '@app/contracts';
import { SchedulerCommands } from '../../../../../test/support/cluster-scheduler-commands.js';
import { BOB, refusalOf, type HandlerHarness } from '../../../../../test/support/handler-harness.js';
import { NetworkVolumesRepository } from '../network-volumes.repository.js';
import { GetNetworkVolumeHandler } from './get-network-volume.handler.js';

/** `volume.qry.get` over cluster-scheduler's real schema, the volumes made by its own commands. */

let scheduler: SchedulerCommands;
let harness: HandlerHarness;

beforeAll(async () => {
  scheduler = await SchedulerCommands.start('scheduler_get_volume');
  harness = scheduler.harness;
  harness.register(new GetNetworkVolumeHandler(new NetworkVolumesRepository(harness.dataSource)));
});

afterAll(async () => {
  await scheduler?.stop();
});

const get = (id: string, actor = {}) => harness.query(Subjects.volume.get, { id }, actor);

describe('getting a network volume', () => {
  it("answers the caller's volume as its last change left it", async () => {
    const created = await scheduler.createVolume('weights', 'EU-RO-1', {
      issuedAt: '2026-03-01T09:30:00.000Z',
    });
    await harness.send(Subjects.volume.update, { id: created.id, name: 'weights-v2', size: 40 });
    expect(await get(created.id)).toEqual({
      id: created.id,
      name: 'weights-v2',
      size: 40,
      dataCenterId: 'EU-RO-1',
      createdAt: '2026-03-01T09:30:00.000Z',
    });
  });

  it('refuses an unknown id and a deleted volume (404)', async () => {
    expect(await refusalOf(get('vol-missing'))).toMatchObject({
      code: ErrorCode.NotFound,
      message: expect.stringContaining('vol-missing'),
    });
    const deleted = await scheduler.createVolume('gone');
    await harness.send(Subjects.volume.delete, { id: deleted.id });
    expect(await refusalOf(get(deleted.id))).toMatchObject({ code: ErrorCode.NotFound });
  });

  it("refuses another user's volume (403)", async () => {
    const volume = await scheduler.createVolume('private');
    expect(await refusalOf(get(volume.id, { actor: BOB }))).toMatchObject({
      code: ErrorCode.Forbidden,
      message: expect.stringContaining('another user'),
    });
  });

  it('refuses a query without an id (422)', async () => {
    expect(await refusalOf(harness.query(Subjects.volume.get, {}))).toMatchObject({
      code: ErrorCode.ValidationFailed,
    });
  });
});
