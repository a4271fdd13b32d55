import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Subjects } from '@app/contracts';
import { SMALL_FLEET, SchedulerCommands } from '../../../../../test/support/cluster-scheduler-commands.js';
import { ALICE, type HandlerHarness } from '../../../../../test/support/handler-harness.js';
import { CatalogRepository } from '../catalog.repository.js';
import { ListDataCentersHandler } from './list-data-centers.handler.js';

/**
 * `catalog.qry.data-centers` over cluster-scheduler's real schema: a small fleet loaded, GPUs and slots taken by
 * its reserves.
 */

let scheduler: SchedulerCommands;
let harness: HandlerHarness;

beforeAll(async () => {
  scheduler = await SchedulerCommands.start('scheduler_data_centers', { fleet: SMALL_FLEET });
  harness = scheduler.harness;
  harness.register(new ListDataCentersHandler(new CatalogRepository(harness.dataSource)));
});

afterAll(async () => {
  await scheduler?.stop();
});

const dataCenters = () => harness.query(Subjects.catalog.dataCenters, {});
const gpus = (gpuTypeId: string, total: number, free: number, maxFree: number, hosts: number) => ({
  gpuTypeId,
  totalGpus: total,
  freeGpus: free,
  maxFreeOnOneHost: maxFree,
  hosts,
});

describe('listing data centers', () => {
  it('answers every data center by id, with what each GPU type and CPU type has there', async () => {
    expect(await dataCenters()).toEqual([
      {
        id: 'EU-RO-1',
        name: 'Romania 1',
        region: 'RO',
        gpuAvailability: [gpus('NVIDIA A40', 4, 4, 4, 1), gpus('NVIDIA L4', 8, 8, 8, 1)],
        cpuAvailability: [{ cpuTypeId: 'cpu3g', totalSlots: 4, freeSlots: 4 }],
      },
      {
        id: 'US-TX-3',
        name: 'Texas 3',
        region: 'US',
        gpuAvailability: [gpus('NVIDIA L4', 6, 6, 4, 2)],
        cpuAvailability: [{ cpuTypeId: 'cpu3g', totalSlots: 2, freeSlots: 2 }],
      },
    ]);
  });

  it('follows the reserves, each in its own data center', async () => {
    const owner = ALICE.userId;
    await harness.send(Subjects.placement.reserve, {
      podId: 'pod-gpu',
      ownerId: owner,
      gpuTypeId: 'NVIDIA L4',
      gpuCount: 3,
      dataCenterIds: ['US-TX-3'],
      ports: [],
    });
    await harness.send(Subjects.placement.reserve, {
      podId: 'pod-cpu',
      ownerId: owner,
      gpuCount: 0,
      cpuTypeId: 'cpu3g',
      dataCenterIds: ['EU-RO-1'],
      ports: [],
    });
    const [romania, texas] = await dataCenters();
    expect(texas.gpuAvailability).toEqual([gpus('NVIDIA L4', 6, 3, 2, 2)]);
    expect(texas.cpuAvailability).toEqual([{ cpuTypeId: 'cpu3g', totalSlots: 2, freeSlots: 2 }]);
    expect(romania.gpuAvailability).toEqual([gpus('NVIDIA A40', 4, 4, 4, 1), gpus('NVIDIA L4', 8, 8, 8, 1)]);
    expect(romania.cpuAvailability).toEqual([{ cpuTypeId: 'cpu3g', totalSlots: 4, freeSlots: 3 }]);
  });
});
