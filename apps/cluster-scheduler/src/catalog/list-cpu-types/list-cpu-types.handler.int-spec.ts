import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Subjects } from '@app/contracts';
import { SMALL_FLEET, SchedulerCommands } from '../../../../../test/support/cluster-scheduler-commands.js';
import { ALICE, type HandlerHarness } from '../../../../../test/support/handler-harness.js';
import { CatalogRepository } from '../catalog.repository.js';
import { ListCpuTypesHandler } from './list-cpu-types.handler.js';

/** `catalog.qry.cpu-types` over cluster-scheduler's real schema: a small fleet loaded, slots taken by its reserves. */

let scheduler: SchedulerCommands;
let harness: HandlerHarness;

beforeAll(async () => {
  scheduler = await SchedulerCommands.start('scheduler_cpu_types', { fleet: SMALL_FLEET });
  harness = scheduler.harness;
  harness.register(new ListCpuTypesHandler(new CatalogRepository(harness.dataSource)));
});

afterAll(async () => {
  await scheduler?.stop();
});

const cpuTypes = () => harness.query(Subjects.catalog.cpuTypes, {});

/** A CPU pod of type cpu3g in `dataCenterId`. */
const reserveCpuPod = (podId: string, dataCenterId: string) =>
  harness.send(Subjects.placement.reserve, {
    podId,
    ownerId: ALICE.userId,
    gpuCount: 0,
    cpuTypeId: 'cpu3g',
    dataCenterIds: [dataCenterId],
    ports: [],
  });

describe('listing CPU types', () => {
  it('answers every CPU type by id, with its price and the CPU pod slots the fleet has free', async () => {
    expect(await cpuTypes()).toEqual([
      {
        id: 'cpu3g',
        displayName: 'General Purpose',
        cores: 4,
        threadsPerCore: 2,
        pricePerHr: 0.1,
        availability: { totalSlots: 6, freeSlots: 6, dataCenterIds: ['EU-RO-1', 'US-TX-3'] },
      },
      {
        id: 'cpu5c',
        displayName: 'Compute-Optimized',
        cores: 8,
        threadsPerCore: 2,
        pricePerHr: 0.16,
        availability: { totalSlots: 0, freeSlots: 0, dataCenterIds: [] },
      },
    ]);
  });

  it('follows the reserves: a data center whose slots are all taken leaves the list', async () => {
    await reserveCpuPod('pod-tx-1', 'US-TX-3');
    await reserveCpuPod('pod-tx-2', 'US-TX-3');
    await reserveCpuPod('pod-ro-1', 'EU-RO-1');
    expect((await cpuTypes())[0].availability).toEqual({
      totalSlots: 6,
      freeSlots: 3,
      dataCenterIds: ['EU-RO-1'],
    });
  });
});
