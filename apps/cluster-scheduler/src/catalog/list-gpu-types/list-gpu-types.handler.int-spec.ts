import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Subjects } from '@app/contracts';
import { SMALL_FLEET, SchedulerCommands } from '../../../../../test/support/cluster-scheduler-commands.js';
import { ALICE, BOB, type HandlerHarness } from '../../../../../test/support/handler-harness.js';
import { CatalogRepository } from '../catalog.repository.js';
import { ListGpuTypesHandler } from './list-gpu-types.handler.js';

/** `catalog.qry.gpu-types` over cluster-scheduler's real schema: a small fleet loaded, GPUs taken by its reserves. */

let scheduler: SchedulerCommands;
let harness: HandlerHarness;

beforeAll(async () => {
  scheduler = await SchedulerCommands.start('scheduler_gpu_types', { fleet: SMALL_FLEET });
  harness = scheduler.harness;
  harness.register(new ListGpuTypesHandler(new CatalogRepository(harness.dataSource)));
});

afterAll(async () => {
  await scheduler?.stop();
});

const gpuTypes = () => harness.query(Subjects.catalog.gpuTypes, {});
const l4 = async () => (await gpuTypes()).find((g) => g.id === 'NVIDIA L4');

describe('listing GPU types', () => {
  it('answers every GPU type, least memory first, with its price and what the fleet has free', async () => {
    expect(await gpuTypes()).toEqual([
      {
        id: 'NVIDIA L4',
        displayName: 'L4',
        manufacturer: 'Nvidia',
        memoryInGb: 24,
        maxCount: 8,
        tier: 'ADA_24',
        pool: 'ADA_24',
        pricePerHr: 0.3,
        availability: {
          totalGpus: 14,
          freeGpus: 14,
          maxFreeOnOneHost: 8,
          hosts: 3,
          dataCenterIds: ['EU-RO-1', 'US-TX-3'],
        },
      },
      {
        id: 'NVIDIA RTX 4090',
        displayName: 'RTX 4090',
        manufacturer: 'Nvidia',
        memoryInGb: 24,
        maxCount: 8,
        tier: 'ADA_24',
        pool: 'ADA_24',
        pricePerHr: 0.4,
        availability: { totalGpus: 0, freeGpus: 0, maxFreeOnOneHost: 0, hosts: 0, dataCenterIds: [] },
      },
      {
        id: 'NVIDIA A40',
        displayName: 'A40',
        manufacturer: 'Nvidia',
        memoryInGb: 48,
        maxCount: 4,
        tier: 'AMPERE_48',
        pool: 'AMPERE_48',
        pricePerHr: 0.5,
        availability: {
          totalGpus: 4,
          freeGpus: 4,
          maxFreeOnOneHost: 4,
          hosts: 1,
          dataCenterIds: ['EU-RO-1'],
        },
      },
    ]);
  });

  it('follows the reserves and releases: a data center with nothing free leaves the list', async () => {
    const reserve = {
      podId: 'pod-ro',
      ownerId: ALICE.userId,
      gpuTypeId: 'NVIDIA L4',
      gpuCount: 8,
      ports: [],
    };
    await harness.send(Subjects.placement.reserve, { ...reserve, dataCenterIds: ['EU-RO-1'] });
    expect((await l4())?.availability).toEqual({
      totalGpus: 14,
      freeGpus: 6,
      maxFreeOnOneHost: 4,
      hosts: 3,
      dataCenterIds: ['US-TX-3'],
    });
    await harness.send(Subjects.placement.release, { podId: 'pod-ro' });
    // The same for any caller: the catalog is nobody's.
    expect((await harness.query(Subjects.catalog.gpuTypes, {}, { actor: BOB }))[0].availability).toEqual({
      totalGpus: 14,
      freeGpus: 14,
      maxFreeOnOneHost: 8,
      hosts: 3,
      dataCenterIds: ['EU-RO-1', 'US-TX-3'],
    });
  });
});
