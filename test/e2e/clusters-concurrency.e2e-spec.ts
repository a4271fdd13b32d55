import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { ClusterView, CommandOutcome, PlacementView } from '@app/contracts';
import { closeBus, commandEnvelope, sendCommand } from '../support/bus.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { A100, api, createUserWithKey, registryAuthKeys, sql, writeFleet } from './clusters-fixtures.js';

/**
 * 50 cluster creates at once over a small fleet, served by two cluster-scheduler replicas (so commits really
 * race), with standalone-pod reservations arriving over the bus at the same time. Afterwards the tables must say:
 * no GPU or port double-booked, no VXLAN id or CIDR shared by live clusters, and every request either placed
 * completely or refused with nothing left behind.
 */
let db: TestDatabase;
let system: RunningSystem;
let replica: RunningSystem;
let key: string;

/** Two data centers × 5 hosts × 8 A100 = 80 GPUs, 12 public ports per host. */
const FLEET = writeFleet(
  ['US-TX-3', 'EU-RO-1'].flatMap((dc) =>
    [1, 2, 3, 4, 5].map((n) => ({
      id: `${dc.toLowerCase()}-${n}`,
      dataCenterId: dc,
      gpuTypeId: A100,
      gpuCount: 8,
      ports: 12,
    })),
  ),
);

beforeAll(async () => {
  db = await createTestDatabase('clusters_race');
  system = await startApps({
    apps: ['gateway', 'cluster-scheduler'],
    databaseUrl: db.url,
    appEnv: {
      gateway: { REGISTRY_AUTH_KEYS: registryAuthKeys() },
      'cluster-scheduler': { FLEET_FILE: FLEET },
    },
  });
  replica = await startApps({
    apps: ['cluster-scheduler'],
    databaseUrl: db.url,
    natsPrefix: system.natsPrefix,
    appEnv: { 'cluster-scheduler': { FLEET_FILE: FLEET } },
  });
  key = (await createUserWithKey(db.url, 'racer')).key;
});

afterAll(async () => {
  await replica?.stop();
  await system?.stop();
  if (system) await deleteStreams(system.natsPrefix);
  await closeBus();
  await db?.drop();
});

describe('50 concurrent cluster creates', () => {
  it('never double-books and leaves nothing half-created', async () => {
    const requests = Array.from({ length: 50 }, (_, i) => ({
      name: `race-${i}`,
      type: (['TRAINING', 'SLURM', 'RAY', 'APPLICATION'] as const)[i % 4],
      compute: { gpuTypeId: A100, gpuCountPerPod: 1 + (i % 4), podCount: 2 + (i % 3) },
      ports: ['22/tcp', '8888/http'],
      ...(i % 5 === 0 ? { dataCenterIds: ['EU-RO-1'] } : {}),
    }));
    const reservations = Array.from({ length: 10 }, (_, i) =>
      commandEnvelope('placement.cmd.reserve', {
        podId: `standalone-${i}-${randomUUID()}`,
        ownerId: 'someone',
        gpuTypeId: A100,
        gpuCount: 1,
        ports: ['22/tcp'],
      }),
    );
    const [responses, outcomes] = await Promise.all([
      Promise.all(
        requests.map((body) => api<ClusterView>(system.url('gateway'), key, 'POST', '/v2/clusters', body)),
      ),
      Promise.all(reservations.map((envelope) => sendCommand(system.natsPrefix, envelope, 30_000))),
    ]);

    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s !== 201 && s !== 409)).toEqual([]);
    const placed = responses.filter((r) => r.status === 201).map((r) => r.body);
    const refused = responses.filter((r) => r.status === 409);
    expect(placed.length).toBeGreaterThan(5);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) expect((r.body as unknown as { detail: string }).detail).toContain(A100);
    const reserved = outcomes
      .filter((o): o is CommandOutcome & { ok: true } => o.ok)
      .map((o) => o.value as PlacementView);
    for (const o of outcomes) if (!o.ok) expect(o.error.code).toBe('CAPACITY_UNAVAILABLE');

    // Each host: free + held = capacity, for GPUs and for ports; and no port twice (primary key), all in range.
    const ledger = await sql<{
      id: string;
      gpu_count: number;
      free_gpus: number;
      held: string;
      free_ports: number;
      ports: string;
      range: number;
      out_of_range: string;
    }>(
      db.url,
      `SELECT h.id, h.gpu_count, h.free_gpus, h.free_ports, h.port_end - h.port_start + 1 AS range,
              coalesce((SELECT sum(r.gpu_count) FROM reservations r WHERE r.host_id = h.id), 0) AS held,
              (SELECT count(*) FROM host_ports p WHERE p.host_id = h.id) AS ports,
              (SELECT count(*) FROM host_ports p WHERE p.host_id = h.id AND (p.port < h.port_start OR p.port > h.port_end)) AS out_of_range
         FROM hosts h`,
    );
    for (const h of ledger) {
      expect({ id: h.id, sum: h.free_gpus + Number(h.held) }).toEqual({ id: h.id, sum: h.gpu_count });
      expect(h.free_gpus).toBeGreaterThanOrEqual(0);
      expect({ id: h.id, sum: h.free_ports + Number(h.ports) }).toEqual({ id: h.id, sum: h.range });
      expect(h.out_of_range).toBe('0');
    }

    // Live clusters: one per 201, distinct VXLAN ids, no overlapping CIDRs.
    const clusters = await sql<{
      id: string;
      vxlan_id: number;
      cidr: string;
      pod_count: number;
      data_center_id: string;
      gpu_count_per_pod: number;
    }>(
      db.url,
      'SELECT id, vxlan_id, cidr::text AS cidr, pod_count, data_center_id, gpu_count_per_pod FROM clusters WHERE deleted_at IS NULL',
    );
    expect(clusters.map((c) => c.id).sort()).toEqual(placed.map((c) => c.id).sort());
    expect(new Set(clusters.map((c) => c.vxlan_id)).size).toBe(clusters.length);
    const overlaps = await sql<{ n: string }>(
      db.url,
      `SELECT count(*) AS n FROM clusters a JOIN clusters b ON a.id < b.id AND a.cidr && b.cidr
        WHERE a.deleted_at IS NULL AND b.deleted_at IS NULL`,
    );
    expect(overlaps[0].n).toBe('0');

    // Every placed cluster is complete: pod_count members and reservations, all in its one data center.
    const members = await sql<{
      cluster_id: string;
      members: string;
      reservations: string;
      dcs: string;
      gpus: string;
    }>(
      db.url,
      `SELECT c.id AS cluster_id,
              (SELECT count(*) FROM cluster_members m WHERE m.cluster_id = c.id) AS members,
              (SELECT count(*) FROM reservations r WHERE r.cluster_id = c.id) AS reservations,
              (SELECT count(DISTINCT r.data_center_id) FROM reservations r WHERE r.cluster_id = c.id) AS dcs,
              (SELECT sum(r.gpu_count) FROM reservations r WHERE r.cluster_id = c.id) AS gpus
         FROM clusters c`,
    );
    for (const c of clusters) {
      const row = members.find((m) => m.cluster_id === c.id)!;
      expect(row).toEqual({
        cluster_id: c.id,
        members: String(c.pod_count),
        reservations: String(c.pod_count),
        dcs: '1',
        gpus: String(c.pod_count * c.gpu_count_per_pod),
      });
      const view = placed.find((p) => p.id === c.id)!;
      expect(view.network).toEqual({ cidr: c.cidr, vxlanId: c.vxlan_id, vxlanPort: 4789 });
      expect(view.dataCenterId).toBe(c.data_center_id);
    }

    // Nothing else is reserved: cluster members plus the standalone pods that got a placement.
    const all = await sql<{ clusters: string; standalone: string }>(
      db.url,
      `SELECT count(*) FILTER (WHERE cluster_id IS NOT NULL) AS clusters,
              count(*) FILTER (WHERE cluster_id IS NULL) AS standalone FROM reservations`,
    );
    expect(Number(all[0].clusters)).toBe(placed.reduce((n, c) => n + c.compute.podCount, 0));
    expect(Number(all[0].standalone)).toBe(reserved.length);
    const orphans = await sql<{ n: string }>(
      db.url,
      `SELECT count(*) AS n FROM cluster_members m WHERE NOT EXISTS (SELECT 1 FROM clusters c WHERE c.id = m.cluster_id)`,
    );
    expect(orphans[0].n).toBe('0');
  });
});
