import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ErrorCode, Subjects, type NetworkVolumeView } from '@app/contracts';
import { ALICE, BOB, type HandlerHarness } from '../../../../test/support/handler-harness.js';
import {
  DC,
  GPU,
  SchedulerCommands,
  reserveOneGpu,
} from '../../../../test/support/cluster-scheduler-commands.js';
import { whileHeld } from '../../../../test/support/while-held.js';
import { PlacementRepository } from '../placement/placement.repository.js';
import { ReservationEntity } from '../placement/reservation.entity.js';
import { NetworkVolumeEntity } from './network-volume.entity.js';
import { NetworkVolumesRepository } from './network-volumes.repository.js';

/**
 * The network volume commands (create, update, delete) over cluster-scheduler's real schema (its migrations, the
 * default fleet loaded) and an in-process bus: each one's success and its main refusal, and how a delete and a
 * change to what mounts the volume, in two lanes at once, wait for each other.
 */

let scheduler: SchedulerCommands;
let harness: HandlerHarness;
let volumes: NetworkVolumesRepository;
let placementRepository: PlacementRepository;

beforeAll(async () => {
  scheduler = await SchedulerCommands.start('scheduler_volumes');
  ({ harness, volumes, placement: placementRepository } = scheduler);
});

afterAll(async () => {
  await scheduler?.stop();
});

const createVolume = (name: string, dataCenterId = DC): Promise<NetworkVolumeView> =>
  scheduler.createVolume(name, dataCenterId);

describe('network volumes', () => {
  it('creates a volume in a data center of the catalog, and emits volume.evt.created', async () => {
    const volume = await createVolume('data');
    expect(volume).toMatchObject({ name: 'data', size: 10, dataCenterId: DC });
    const events = await harness.events(Subjects.volume.created);
    expect(events.at(-1)?.payload).toMatchObject({ id: volume.id, ownerId: ALICE.userId });
  });

  it('refuses a data center the catalog does not have (422 naming the field)', async () => {
    expect(await harness.refusal(() => createVolume('nowhere', 'XX-NO-1'))).toMatchObject({
      wrote: [],
      code: ErrorCode.ValidationFailed,
      errors: [expect.stringContaining('dataCenterId must be a data center id')],
    });
  });

  it('grows a volume, and refuses to shrink it (400)', async () => {
    const volume = await createVolume('growing');
    const grown = await harness.send(Subjects.volume.update, { id: volume.id, size: 20 });
    expect(grown.size).toBe(20);
    expect(
      await harness.refusal(() => harness.send(Subjects.volume.update, { id: volume.id, size: 5 })),
    ).toMatchObject({ wrote: [], code: ErrorCode.BadRequest });
  });

  it("refuses another user's volume (403)", async () => {
    const volume = await createVolume('private');
    const update = harness.send(Subjects.volume.update, { id: volume.id, name: 'mine' }, { actor: BOB });
    expect(await harness.refusal(() => update)).toMatchObject({ wrote: [], code: ErrorCode.Forbidden });
  });

  it('deletes a volume nothing mounts, and refuses one a pod mounts (IN_USE) until the pod is released', async () => {
    const volume = await createVolume('mounted');
    const reserved = await harness.send(Subjects.placement.reserve, {
      podId: 'pod-mounting',
      ownerId: ALICE.userId,
      gpuTypeId: GPU,
      gpuCount: 1,
      ports: [],
      networkVolumeId: volume.id,
    });
    expect(reserved.dataCenterId).toBe(DC);
    expect(
      await harness.refusal(() => harness.send(Subjects.volume.delete, { id: volume.id })),
    ).toMatchObject({ wrote: [], code: ErrorCode.InUse, message: expect.stringContaining('1 pod(s)') });
    await harness.send(Subjects.placement.release, { podId: 'pod-mounting' });
    await harness.send(Subjects.volume.delete, { id: volume.id });
    expect(
      await harness.refusal(() => harness.send(Subjects.volume.update, { id: volume.id, size: 50 })),
    ).toMatchObject({ wrote: [], code: ErrorCode.NotFound });
  });
});

const reserveMounting = (podId: string, volumeId: string) =>
  harness.send(Subjects.placement.reserve, {
    podId,
    ownerId: ALICE.userId,
    gpuTypeId: GPU,
    gpuCount: 1,
    ports: [],
    networkVolumeId: volumeId,
  });

describe('network volumes in two lanes at once', () => {
  // A volume's delete and a change to what mounts it may run at the same time in two lanes (their domains are
  // consumed side by side); each must see the other done or not begun, as a rebuild (one command after another, in
  // processed_at order) will.
  it('a mount waits for a delete in flight, then finds the volume gone (422)', async () => {
    const volume = await createVolume('going');
    const reserve = await whileHeld(
      harness.dataSource,
      (manager) => volumes.lockById(volume.id, manager),
      () => reserveMounting('pod-late-mount', volume.id),
    );
    expect(reserve.waited).toBe(true);
    expect(
      await harness.refusal(() => reserve.end((manager) => manager.delete(NetworkVolumeEntity, volume.id))),
    ).toMatchObject({
      code: ErrorCode.ValidationFailed,
      errors: [expect.stringContaining(`"${volume.id}" is not one`)],
    });
  });

  it('a delete waits for a mount in flight, then counts it (IN_USE)', async () => {
    const volume = await createVolume('mounting');
    const remove = await whileHeld(
      harness.dataSource,
      (manager) => volumes.shareById(volume.id, manager),
      () => harness.send(Subjects.volume.delete, { id: volume.id }),
    );
    expect(remove.waited).toBe(true);
    // What the mount in flight commits: a reservation of the volume.
    await reserveMounting('pod-early-mount', volume.id);
    expect(await harness.refusal(() => remove.end())).toMatchObject({ code: ErrorCode.InUse });
  });

  it('a delete waits for a release in flight (the ledger), then counts the pod gone', async () => {
    const volume = await createVolume('released');
    await reserveMounting('pod-releasing', volume.id);
    const remove = await whileHeld(
      harness.dataSource,
      (manager) => placementRepository.lockLedger(manager),
      () => harness.send(Subjects.volume.delete, { id: volume.id }),
    );
    expect(remove.waited).toBe(true);
    // What the release in flight commits: the reservation gone.
    await expect(
      remove.end((manager) => manager.delete(ReservationEntity, { podId: 'pod-releasing' })),
    ).resolves.toBeNull();
  });

  it('a reserve of a placed pod waits for a release in flight (the ledger), then places the pod again', async () => {
    // Found by the two-replica randomized history: the reserve read the reservation before the ledger lock and
    // answered from it while another lane's release committed, so the rebuild (release first, in processed_at
    // order) placed the pod again and gave its port to it rather than to the next pod.
    const command = reserveOneGpu('pod-resumed');
    const first = await harness.send(Subjects.placement.reserve, command);
    const resume = await whileHeld(
      harness.dataSource,
      (manager) => placementRepository.lockLedger(manager),
      () =>
        harness.send(Subjects.placement.reserve, { ...command, hostId: first.hostId, reassignPorts: true }),
    );
    expect(resume.waited).toBe(true);
    // What the release in flight commits: the reservation gone.
    await resume.end((manager) => placementRepository.release(manager, 'pod-resumed'));
    const held = await placementRepository.findReservation('pod-resumed', harness.dataSource.manager);
    expect(held).toMatchObject({ podId: 'pod-resumed', hostId: first.hostId });
  });

  it("a cluster's delete waits for the ledger, as every change to what mounts a volume does", async () => {
    const cluster = await scheduler.createCluster('deleted-beside');
    const remove = await whileHeld(
      harness.dataSource,
      (manager) => placementRepository.lockLedger(manager),
      () => harness.send(Subjects.cluster.delete, { id: cluster.id }),
    );
    expect(remove.waited).toBe(true);
    await expect(remove.end()).resolves.toBeNull();
  });
});
