import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Subjects, type Actor } from '@app/contracts';
import { SchedulerCommands } from '../../../../../test/support/cluster-scheduler-commands.js';
import { BOB, type HandlerHarness } from '../../../../../test/support/handler-harness.js';
import { NetworkVolumesRepository } from '../network-volumes.repository.js';
import { ListNetworkVolumesHandler } from './list-network-volumes.handler.js';

/** `volume.qry.list` over cluster-scheduler's real schema, the volumes made by its own commands. */

const CAROL: Actor = { userId: 'user-carol', kind: 'user' };

let scheduler: SchedulerCommands;
let harness: HandlerHarness;

beforeAll(async () => {
  scheduler = await SchedulerCommands.start('scheduler_list_volumes');
  harness = scheduler.harness;
  harness.register(new ListNetworkVolumesHandler(new NetworkVolumesRepository(harness.dataSource)));
});

afterAll(async () => {
  await scheduler?.stop();
});

const at = (time: string) => ({ issuedAt: `2026-03-01T${time}:00.000Z` });

describe('listing network volumes', () => {
  it("answers the caller's volumes only, oldest first, without the deleted ones", async () => {
    const late = await scheduler.createVolume('late', 'US-TX-3', at('11:00'));
    const early = await scheduler.createVolume('early', 'EU-RO-1', at('10:00'));
    const deleted = await scheduler.createVolume('deleted', 'US-TX-3', at('10:30'));
    await harness.send(Subjects.volume.delete, { id: deleted.id });
    const bobs = await scheduler.createVolume('bobs', 'US-TX-3', { ...at('09:00'), actor: BOB });

    expect(await harness.query(Subjects.volume.list, {})).toEqual([early, late]);
    expect(await harness.query(Subjects.volume.list, {}, { actor: BOB })).toEqual([bobs]);
    expect(await harness.query(Subjects.volume.list, {}, { actor: CAROL })).toEqual([]);
  });
});
