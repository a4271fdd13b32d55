import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  ErrorCode,
  PodStatus,
  Subjects,
  type PodStatusChangedEvent,
  type ClusterCreatedEvent,
  type NetworkVolumeView,
  type SpendStatus,
} from '@app/contracts';
import type { EventEnvelope } from '@app/messaging';
import {
  ALICE,
  BOB,
  HandlerHarness,
  InProcessCommands,
  InProcessQueries,
} from '../../../../test/support/handler-harness.js';
import { whileHeld } from '../../../../test/support/while-held.js';
import { CatalogChecks } from '../catalog/catalog.checks.js';
import { CatalogRepository } from '../catalog/catalog.repository.js';
import { FleetLoader } from '../catalog/fleet.loader.js';
import { ClusterSchedulerConfig } from '../cluster-scheduler.config.js';
import { ClusterMemberEntity } from './cluster-member.entity.js';
import { toClusterMemberView } from './cluster.mapper.js';
import { ClustersRepository } from './clusters.repository.js';
import { parseCidr } from '../overlay/overlay.js';
import { CreateClusterHandler } from './create-cluster/create-cluster.handler.js';
import { DeleteClusterHandler } from './delete-cluster/delete-cluster.handler.js';
import { FollowPodStatusHandler } from './follow-pod-status/follow-pod-status.handler.js';
import { DATA_SOURCE_SPEC } from '../data-source.js';
import { PlacementApplier } from '../placement/placement.applier.js';
import { PlacementRepository } from '../placement/placement.repository.js';
import { ReleasePodHandler } from '../placement/release-pod/release-pod.handler.js';
import { ReservePodHandler } from '../placement/reserve-pod/reserve-pod.handler.js';
import { ReservationEntity } from '../placement/reservation.entity.js';
import { NetworkVolumeEntity } from '../volumes/network-volume.entity.js';
import { CreateNetworkVolumeHandler } from '../volumes/create-network-volume/create-network-volume.handler.js';
import { DeleteNetworkVolumeHandler } from '../volumes/delete-network-volume/delete-network-volume.handler.js';
import { NetworkVolumesRepository } from '../volumes/network-volumes.repository.js';
import { UpdateNetworkVolumeHandler } from '../volumes/update-network-volume/update-network-volume.handler.js';
import { VolumeUsageRepository } from '../volumes/usage/volume-usage.repository.js';

/**
 * cluster-scheduler's command handlers over its real schema (its migrations, the default fleet loaded) and an
 * in-process bus: each one's success and its main refusal, what it wrote and what it emitted.
 */

const GPU = 'NVIDIA A100 80GB PCIe';
const DC = 'US-TX-3';
/**
 * What one cluster create and one pod reserve send to Postgres, transaction control and prepared statements
 * included (the command's own bookkeeping, the catalog checks, the snapshot, the claims and ports, a cluster's
 * overlay and rows, the rates, the event): as many as before the placement had one applier (measured on main: 14
 * and 15), one more since every placement takes the ledger's advisory lock (PlacementRepository.lockLedger), and
 * one fewer for a create since a command's outbox rows and processed row are one statement (docs/adr/0013), and
 * one more for a reserve, which takes the ledger before it reads what the pod holds (and again to place it).
 */
const CLUSTER_CREATE_STATEMENTS = 14;
const RESERVE_STATEMENTS = 17;

let harness: HandlerHarness;
let volumes: NetworkVolumesRepository;
let placementRepository: PlacementRepository;
let followPodStatus: FollowPodStatusHandler;

/** pod-lifecycle's answer to the spend check: no limit for anyone. */
function noLimit(userId: string, at: string): SpendStatus {
  return {
    userId,
    operatorLimit: null,
    userLimit: null,
    monthlyLimit: null,
    month: at.slice(0, 7),
    startTime: `${at.slice(0, 7)}-01T00:00:00.000Z`,
    endTime: at,
    spend: 0,
    reached: false,
  };
}

beforeAll(async () => {
  harness = await HandlerHarness.start('scheduler_handlers', 'cluster-scheduler', DATA_SOURCE_SPEC);
  const { dataSource } = harness;
  const config = new ClusterSchedulerConfig();
  const catalog = new CatalogRepository(dataSource);
  await new FleetLoader(config, catalog).load();
  const checks = new CatalogChecks(catalog);
  volumes = new NetworkVolumesRepository(dataSource);
  const usage = new VolumeUsageRepository(dataSource);
  placementRepository = new PlacementRepository(dataSource);
  const clusters = new ClustersRepository(dataSource);
  const applier = new PlacementApplier(placementRepository, volumes, clusters, config);
  followPodStatus = new FollowPodStatusHandler(
    clusters,
    placementRepository,
    new InProcessCommands(harness).asBus(),
  );
  const queries = new InProcessQueries().answer(Subjects.spend.status, ({ at }, actor) =>
    noLimit(actor.userId, at ?? '2026-03-01T12:00:00.000Z'),
  );
  harness.register(
    new CreateNetworkVolumeHandler(volumes, checks, usage),
    new UpdateNetworkVolumeHandler(volumes, usage),
    new DeleteNetworkVolumeHandler(volumes, usage, clusters, placementRepository, {
      lock: (manager) => placementRepository.lockLedger(manager),
    }),
    new CreateClusterHandler(clusters, applier, checks, catalog, config, queries.asBus()),
    new DeleteClusterHandler(clusters, placementRepository),
    new ReservePodHandler(placementRepository, applier, checks, clusters, catalog),
    new ReleasePodHandler(placementRepository),
  );
});

afterAll(async () => {
  await harness?.stop();
});

const createVolume = (name: string, dataCenterId = DC): Promise<NetworkVolumeView> =>
  harness.send(Subjects.volume.create, { name, size: 10, dataCenterId });

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

/** A TRAINING cluster of `podCount` pods with `gpuCountPerPod` GPUs each, in the one data center. */
const createCluster = (name: string, podCount = 2, gpuCountPerPod = 8) =>
  harness.send(Subjects.cluster.create, {
    name,
    type: 'TRAINING',
    compute: { gpuTypeId: GPU, gpuCountPerPod, podCount },
    dataCenterIds: [DC],
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

/** A reserve of a one-GPU pod exposing 8888/http. */
const reserveOneGpu = (podId: string) => ({
  podId,
  ownerId: ALICE.userId,
  gpuTypeId: GPU,
  gpuCount: 1,
  ports: ['8888/http'],
});

/** pod-lifecycle's status event of a pod, at `at`. */
function statusEvent(
  podId: string,
  status: PodStatus,
  previousStatus: PodStatus | null,
  at: Date,
): EventEnvelope<PodStatusChangedEvent> {
  return {
    eventId: `evt-${podId}-${status}-${at.getTime()}`,
    subject: Subjects.pod.statusChanged,
    occurredAt: at.toISOString(),
    correlationId: `corr-${podId}`,
    payload: {
      podId,
      ownerId: ALICE.userId,
      clusterId: null,
      rank: 0,
      status,
      previousStatus,
      hostId: null,
      publicIp: null,
      portMappings: {},
      at: at.toISOString(),
    },
  };
}

/** Handles `event` as cluster-scheduler's event consumer does: in a transaction of its own. */
const follow = (event: EventEnvelope<PodStatusChangedEvent>) =>
  harness.dataSource.transaction((tx) =>
    followPodStatus.handle({ event, manager: tx, emit: () => Promise.resolve() }),
  );

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
    const cluster = await createCluster('deleted-beside');
    const remove = await whileHeld(
      harness.dataSource,
      (manager) => placementRepository.lockLedger(manager),
      () => harness.send(Subjects.cluster.delete, { id: cluster.id }),
    );
    expect(remove.waited).toBe(true);
    await expect(remove.end()).resolves.toBeNull();
  });
});

describe("a cluster member's status events in two replicas at once", () => {
  it('an older event handled beside a newer one waits for it and leaves the newer status', async () => {
    const cluster = await createCluster('followed', 2, 1);
    const { manager } = harness.dataSource;
    const member = (await manager.findOneBy(ClusterMemberEntity, { clusterId: cluster.id }))!;
    const newer = new Date(Date.now() + 60_000);
    const older = new Date(Date.now() + 30_000);
    const event = statusEvent(member.podId, PodStatus.Starting, PodStatus.Provisioning, older);
    const handled = await whileHeld(
      harness.dataSource,
      // The other replica's handling of the newer event, not yet committed.
      (holder) =>
        holder.update(ClusterMemberEntity, { podId: member.podId }, { status: 'RUNNING', statusAt: newer }),
      () => follow(event),
    );
    expect(handled.waited).toBe(true);
    await handled.end();
    expect(await manager.findOneBy(ClusterMemberEntity, { podId: member.podId })).toMatchObject({
      status: 'RUNNING',
      statusAt: newer,
    });
  });

  it('of two events at the same time, the one that follows the other wins in either order', async () => {
    // A member created by pod-lifecycle after its cluster was deleted is PROVISIONING and TERMINATED at one time.
    const at = new Date(Date.now() + 90_000);
    const cluster = await createCluster('same-time', 2, 1);
    const { manager } = harness.dataSource;
    const members = await manager.findBy(ClusterMemberEntity, { clusterId: cluster.id });
    const created = (podId: string) => statusEvent(podId, PodStatus.Provisioning, null, at);
    const terminated = (podId: string) =>
      statusEvent(podId, PodStatus.Terminated, PodStatus.Provisioning, at);
    const orders = [
      [created(members[0].podId), terminated(members[0].podId)],
      [terminated(members[1].podId), created(members[1].podId)],
    ];
    for (const order of orders) {
      for (const event of order) await follow(event);
    }
    const after = await manager.findBy(ClusterMemberEntity, { clusterId: cluster.id });
    expect(after.map((m) => m.status)).toEqual(['TERMINATED', 'TERMINATED']);
  });
});

describe('placement', () => {
  it('reserves a GPU pod with public ports on a host of the fleet, and gives the same reservation back', async () => {
    const command = {
      podId: 'pod-reserved',
      ownerId: ALICE.userId,
      gpuTypeId: GPU,
      gpuCount: 2,
      ports: ['8888/http', '22/tcp'],
      dataCenterIds: [DC],
    };
    const first = await harness.send(Subjects.placement.reserve, command);
    expect(first).toMatchObject({ podId: 'pod-reserved', dataCenterId: DC, gpuTypeId: GPU, gpuCount: 2 });
    expect(first.publicIp).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(Object.keys(first.portMappings).sort()).toEqual(['22/tcp', '8888/http']);
    expect(first.rates).toBeDefined();
    const again = await harness.send(Subjects.placement.reserve, command);
    expect(again).toMatchObject({
      hostId: first.hostId,
      publicIp: first.publicIp,
      portMappings: first.portMappings,
    });
  });

  it("a resume that finds the pod's reservation held keeps it from the release of the stop before it", async () => {
    // A stop's release is recorded by the scheduler when it hears the stop (FollowPodStatusHandler), so a start
    // right after the stop can reach the reserve first and find the reservation still held.
    const command = reserveOneGpu('pod-stopped-started');
    const created = await harness.send(Subjects.placement.reserve, command, {
      issuedAt: '2026-03-01T12:00:00.000Z',
    });
    await harness.send(
      Subjects.placement.reserve,
      { ...command, hostId: created.hostId, reassignPorts: true },
      { issuedAt: '2026-03-01T12:05:00.000Z' },
    );
    await harness.send(Subjects.placement.release, {
      podId: 'pod-stopped-started',
      notAfter: '2026-03-01T12:04:00.000Z',
    });
    expect(await placementRepository.findReservation('pod-stopped-started')).toMatchObject({
      hostId: created.hostId,
      portMappings: created.portMappings,
    });
    // A release after the resume takes it as before.
    await harness.send(Subjects.placement.release, {
      podId: 'pod-stopped-started',
      notAfter: '2026-03-01T12:06:00.000Z',
    });
    expect(await placementRepository.findReservation('pod-stopped-started')).toBeNull();
  });

  it('refuses more GPUs than the type allows per pod (422)', async () => {
    const reserve = harness.send(Subjects.placement.reserve, {
      podId: 'pod-too-big',
      ownerId: ALICE.userId,
      gpuTypeId: GPU,
      gpuCount: 9,
      ports: [],
    });
    expect(await harness.refusal(() => reserve)).toMatchObject({
      wrote: [],
      code: ErrorCode.ValidationFailed,
      errors: [expect.stringContaining('gpuCount must not be greater than 8')],
    });
  });

  it('reserves a pod in a fixed number of statements', async () => {
    const { statements } = await harness.statements(() =>
      harness.send(Subjects.placement.reserve, {
        podId: 'pod-counted',
        ownerId: ALICE.userId,
        gpuTypeId: GPU,
        gpuCount: 1,
        ports: ['22/tcp'],
      }),
    );
    expect(statements).toBe(RESERVE_STATEMENTS);
  });

  it('refuses a release without a pod id (422), and releasing a pod that holds nothing writes nothing', async () => {
    expect(await harness.refusal(() => harness.send(Subjects.placement.release, {}))).toMatchObject({
      code: ErrorCode.ValidationFailed,
      wrote: [],
    });
    const release = () => harness.send(Subjects.placement.release, { podId: 'pod-never-placed' });
    expect(await harness.wrote(release)).toEqual({ result: null, wrote: [] });
  });

  it('releases a reservation, twice harmlessly', async () => {
    await harness.send(Subjects.placement.reserve, {
      podId: 'pod-released',
      ownerId: ALICE.userId,
      gpuTypeId: GPU,
      gpuCount: 1,
      ports: [],
    });
    await expect(harness.send(Subjects.placement.release, { podId: 'pod-released' })).resolves.toBeNull();
    await expect(harness.send(Subjects.placement.release, { podId: 'pod-released' })).resolves.toBeNull();
  });
});

describe('clusters', () => {
  it('places every member in one data center with an overlay, and emits cluster.evt.created with their specs', async () => {
    const cluster = await createCluster('trainers');
    expect(cluster).toMatchObject({ name: 'trainers', pods: { total: 2 } });
    const created = (await harness.events(Subjects.cluster.created)).at(-1)?.payload as ClusterCreatedEvent;
    expect(created.clusterId).toBe(cluster.id);
    expect(created.members.map((m) => m.rank)).toEqual([0, 1]);
    for (const member of created.members) {
      expect(member.placement).toMatchObject({ dataCenterId: DC, gpuTypeId: GPU, gpuCount: 8 });
      expect(member.placement.publicIp).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
      expect(member.overlayIp).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    }
    const [row] = await harness.dataSource.query<{ vxlan_id: number }[]>(
      'SELECT vxlan_id FROM cluster_scheduler.clusters WHERE id = $1',
      [cluster.id],
    );
    expect(row.vxlan_id).toBeGreaterThan(0);
  });

  it("stores and sends the cluster's shared variables once and each member's own, which join into its environment", async () => {
    const cluster = await createCluster('env-split', 3, 1);
    const created = (await harness.events(Subjects.cluster.created)).at(-1)?.payload as ClusterCreatedEvent;
    expect(created.env).toMatchObject({ CLUSTER_ID: cluster.id, NUM_NODES: '3', WORLD_SIZE: '3' });
    expect(created.env?.NODE_RANK).toBeUndefined();
    for (const member of created.members) {
      expect(member.env).toEqual({
        CLUSTER_ROLE: member.role,
        NODE_ADDR: member.overlayIp,
        NODE_RANK: String(member.rank),
        RANK: String(member.rank),
      });
    }
    const [row] = await harness.dataSource.query<{ member_env: Record<string, string> }[]>(
      'SELECT member_env FROM cluster_scheduler.clusters WHERE id = $1',
      [cluster.id],
    );
    expect(row.member_env).toEqual(created.env);
    // As the member routes show them (list-cluster-members maps the stored rows so).
    const clusters = new ClustersRepository(harness.dataSource);
    const stored = (await clusters.findLive(cluster.id))!;
    const views = (await clusters.members(cluster.id)).map((m) => toClusterMemberView(stored, m));
    expect(views.map((v) => v.env)).toEqual(created.members.map((m) => ({ ...created.env, ...m.env })));
    expect(views[2].env).toMatchObject({ MASTER_ADDR: created.members[0].overlayIp, NODE_RANK: '2' });
  });

  it("writes each member's reservation and host ports as its mappings say, and takes its hosts' exact share", async () => {
    type HostRow = { id: string; free_gpus: number; free_ports: number };
    const hostsNow = async () =>
      new Map(
        (
          await harness.dataSource.query<HostRow[]>(
            'SELECT id, free_gpus, free_ports FROM cluster_scheduler.hosts WHERE gpu_type_id = $1',
            [GPU],
          )
        ).map((h) => [h.id, h]),
      );
    const before = await hostsNow();
    const cluster = await harness.send(
      Subjects.cluster.create,
      {
        name: 'claims',
        type: 'TRAINING',
        compute: { gpuTypeId: GPU, gpuCountPerPod: 1, podCount: 5 },
        dataCenterIds: [DC],
        ports: ['22/tcp', '8888/http'],
      },
      { issuedAt: '2026-03-02T08:30:00.000Z' },
    );
    const created = (await harness.events(Subjects.cluster.created)).at(-1)?.payload as ClusterCreatedEvent;
    expect(created.clusterId).toBe(cluster.id);
    const placements = new Map(created.members.map((m) => [m.podId, m.placement]));
    expect(placements.size).toBe(5);

    const reservations = await harness.dataSource.query<Record<string, unknown>[]>(
      `SELECT pod_id, owner_id, cluster_id, host_id, data_center_id, gpu_type_id, gpu_count, cpu_slots,
              network_volume_id, port_mappings, created_at FROM cluster_scheduler.reservations
        WHERE cluster_id = $1 ORDER BY pod_id`,
      [cluster.id],
    );
    expect(reservations).toEqual(
      [...placements.values()]
        .sort((a, b) => (a.podId < b.podId ? -1 : 1))
        .map((p) => ({
          pod_id: p.podId,
          owner_id: ALICE.userId,
          cluster_id: cluster.id,
          host_id: p.hostId,
          data_center_id: DC,
          gpu_type_id: GPU,
          gpu_count: 1,
          cpu_slots: 0,
          network_volume_id: null,
          port_mappings: p.portMappings,
          created_at: new Date('2026-03-02T08:30:00.000Z'),
        })),
    );
    for (const placement of placements.values()) {
      expect(Object.keys(placement.portMappings).sort()).toEqual(['22/tcp', '8888/http']);
    }
    const ports = await harness.dataSource.query<{ host_id: string; port: number; pod_id: string }[]>(
      `SELECT host_id, port, pod_id FROM cluster_scheduler.host_ports WHERE pod_id = ANY($1::text[])
        ORDER BY host_id, port`,
      [[...placements.keys()]],
    );
    expect(ports).toEqual(
      [...placements.values()]
        .flatMap((p) =>
          Object.values(p.portMappings).map((port) => ({ host_id: p.hostId, port, pod_id: p.podId })),
        )
        .sort((a, b) => (a.host_id === b.host_id ? a.port - b.port : a.host_id < b.host_id ? -1 : 1)),
    );

    const members = await harness.dataSource.query<Record<string, unknown>[]>(
      `SELECT pod_id, cluster_id, host_id, port_mappings, status, status_at, created_at
         FROM cluster_scheduler.cluster_members WHERE cluster_id = $1 ORDER BY rank`,
      [cluster.id],
    );
    expect(members).toEqual(
      created.members.map((m) => ({
        pod_id: m.podId,
        cluster_id: cluster.id,
        host_id: m.placement.hostId,
        port_mappings: m.placement.portMappings,
        status: PodStatus.Provisioning,
        status_at: new Date('2026-03-02T08:30:00.000Z'),
        created_at: new Date('2026-03-02T08:30:00.000Z'),
      })),
    );

    // Each host gave a GPU and 2 ports per member placed on it (some took several), and no other host changed.
    const after = await hostsNow();
    const podsOn = new Map<string, number>();
    for (const p of placements.values()) podsOn.set(p.hostId, (podsOn.get(p.hostId) ?? 0) + 1);
    expect(Math.max(...podsOn.values())).toBeGreaterThan(1);
    for (const [id, host] of after) {
      const pods = podsOn.get(id) ?? 0;
      expect(host).toEqual({
        id,
        free_gpus: before.get(id)!.free_gpus - pods,
        free_ports: before.get(id)!.free_ports - 2 * pods,
      });
    }
  });

  it('creates a cluster in a fixed number of statements, whatever its size (the placement applied in bulk)', async () => {
    const two = await harness.statements(() => createCluster('count-2', 2));
    const eight = await harness.statements(() => createCluster('count-8', 8));
    expect(two.statements).toBe(CLUSTER_CREATE_STATEMENTS);
    expect(eight.statements).toBe(CLUSTER_CREATE_STATEMENTS);
  });

  it('refuses a cluster no data center can hold (CAPACITY_UNAVAILABLE), leaving nothing reserved', async () => {
    const before = await harness.dataSource.query<{ n: number }[]>(
      'SELECT count(*)::int AS n FROM cluster_scheduler.reservations',
    );
    expect(await harness.refusal(() => createCluster('too-many', 250))).toMatchObject({
      wrote: [],
      code: ErrorCode.CapacityUnavailable,
    });
    const after = await harness.dataSource.query<{ n: number }[]>(
      'SELECT count(*)::int AS n FROM cluster_scheduler.reservations',
    );
    expect(after[0].n).toBe(before[0].n);
  });

  it("deletes a cluster (cluster.evt.deleted names its members), and refuses another user's (403)", async () => {
    const cluster = await createCluster('short-lived');
    expect(
      await harness.refusal(() => harness.send(Subjects.cluster.delete, { id: cluster.id }, { actor: BOB })),
    ).toMatchObject({ wrote: [], code: ErrorCode.Forbidden });
    await harness.send(Subjects.cluster.delete, { id: cluster.id });
    const deleted = (await harness.events(Subjects.cluster.deleted)).at(-1)?.payload;
    expect(deleted).toMatchObject({ clusterId: cluster.id, ownerId: ALICE.userId });
    expect((deleted as { podIds: string[] }).podIds).toHaveLength(2);
  });

  it("reads the live clusters' overlays as numbers equal to their CIDRs (every create above allocated beside them)", async () => {
    const clusters = new ClustersRepository(harness.dataSource);
    const live = await clusters.liveOverlays(harness.dataSource.manager);
    const rows = await harness.dataSource.query<{ vxlan_id: number; cidr: string }[]>(
      'SELECT vxlan_id, cidr::text AS cidr FROM cluster_scheduler.clusters WHERE deleted_at IS NULL',
    );
    expect(live.length).toBeGreaterThanOrEqual(3);
    const byId = (a: { vxlanId: number }, b: { vxlanId: number }) => a.vxlanId - b.vxlanId;
    expect([...live].sort(byId)).toEqual(
      rows.map((r) => ({ vxlanId: r.vxlan_id, block: parseCidr(r.cidr) })).sort(byId),
    );
    const [overlaps] = await harness.dataSource.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM cluster_scheduler.clusters a JOIN cluster_scheduler.clusters b
          ON a.id < b.id AND a.cidr && b.cidr WHERE a.deleted_at IS NULL AND b.deleted_at IS NULL`,
    );
    expect(overlaps.n).toBe(0);
  });
});
