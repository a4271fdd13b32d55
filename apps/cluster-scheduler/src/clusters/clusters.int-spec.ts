import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ErrorCode, PodStatus, Subjects, type ClusterCreatedEvent } from '@app/contracts';
import { ALICE, BOB, type HandlerHarness } from '../../../../test/support/handler-harness.js';
import { DC, GPU, SchedulerCommands } from '../../../../test/support/cluster-scheduler-commands.js';
import { parseCidr } from '../overlay/overlay.js';
import { toClusterMemberView } from './cluster.mapper.js';
import { ClustersRepository } from './clusters.repository.js';

/**
 * The cluster commands (create, delete) over cluster-scheduler's real schema (its migrations, the default fleet
 * loaded) and an in-process bus: what a create places, writes and emits, its refusals, and a delete.
 */

/**
 * What one cluster create sends to Postgres, transaction control and prepared statements included (the command's
 * own bookkeeping, the catalog checks, the snapshot, the claims and ports, the overlay and rows, the rates, the
 * event): as many as before the placement had one applier (measured on main: 14), one more since every placement
 * takes the ledger's advisory lock (PlacementRepository.lockLedger), one fewer since a command's outbox rows
 * and processed row are one statement (docs/adr/0013), and one more since admission reads the owner's quota
 * (QuotasRepository.around, docs/adr/0037).
 */
const CLUSTER_CREATE_STATEMENTS = 15;

let scheduler: SchedulerCommands;
let harness: HandlerHarness;

beforeAll(async () => {
  scheduler = await SchedulerCommands.start('scheduler_clusters');
  harness = scheduler.harness;
});

afterAll(async () => {
  await scheduler?.stop();
});

const createCluster = (name: string, podCount?: number, gpuCountPerPod?: number) =>
  scheduler.createCluster(name, podCount, gpuCountPerPod);

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
