import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { preparedQuery, transactionScratch, writeBehind } from '@app/database';
import type { DataCenterInfo, FleetSnapshot, HostCapacity, PlacementRequest } from './placement.js';
import { allocatePorts, LostRaceError, type HostAddress, type PodClaim } from './port-allocation.js';
import { ReservationEntity } from './reservation.entity.js';
import { ReserveBatch } from './reserve-pod/reserve-batch.js';
import { snapshotStatement } from './snapshot-statement.js';
import { schedulableSql } from '../catalog/host.entity.js';
import { table } from '../schema.js';
import type { PodsMountingVolume } from '../volumes/volume-mounts.js';

/** The name of the placement ledger's advisory lock (lockLedger). */
const PLACEMENT_LEDGER_LOCK = 'cluster_scheduler.placement-ledger';
const LOCK_LEDGER = 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))';

/** What every pod of one commit shares: whose the pods are, what each takes, and when. */
export interface ClaimTerms {
  ownerId: string;
  clusterId: string | null;
  dataCenterId: string;
  gpuTypeId: string | null;
  /** GPUs and CPU slots each pod takes. */
  gpuCount: number;
  cpuSlots: number;
  networkVolumeId: string | null;
  /** The port specs each pod maps publicly. */
  ports: readonly string[];
  createdAt: Date;
  /** priorityRank of the workload, and whether it is preemptible at any priority. */
  priority: number;
  interruptible: boolean;
}

/** A snapshot host as the snapshot statement encodes it (see `snapshot`). */
export type HostTuple = [
  id: string,
  dataCenterId: string,
  gpuTypeId: string | null,
  gpuCount: number,
  freeGpus: number,
  cpuTypeId: string | null,
  cpuSlots: number,
  freeCpuSlots: number,
  freePorts: number,
];

/** What a commit took: each pod's port mappings, and the addresses of the hosts it took them on. */
export interface Commitment {
  mappings: Map<string, Record<string, number>>;
  hosts: Map<string, HostAddress>;
}

/** A host's address as the statements return it. */
interface HostAddressRow {
  id: string;
  public_ip: string;
  port_start: number;
  port_end: number;
}

function hostAddress(r: HostAddressRow): HostAddress {
  return { id: r.id, publicIp: r.public_ip, portStart: r.port_start, portEnd: r.port_end };
}

/** TypeORM answers UPDATE/DELETE ... RETURNING with `[rows, rowCount]` and other statements with the rows. */
function returningRows<T>(result: T[] | [T[], number]): T[] {
  return (Array.isArray(result[0]) ? result[0] : result) as T[];
}

/** The capacity ledger: snapshots for placement, and the commit the database guards against double booking. */
/**
 * The guarded take of hosts' capacity, shared by the lone claim and the batch's. `LOCK_HOSTS` (a CTE, `locked`)
 * locks every host of $1 in id order; the UPDATE reaches a host only through its row there, so it never locks one
 * out of that order, and takes $2 pods' share ($3 GPUs, $4 CPU slots, $5 ports a pod) where the host is still
 * schedulable and has room. `returning` names what the caller reads back; a host missing from it lost a race.
 */
export const LOCK_HOSTS = `locked AS MATERIALIZED (
         SELECT id FROM ${table('hosts')} WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE
       )`;

export function takeHostsSql(returning: string): string {
  return `UPDATE ${table('hosts')} h
          SET free_gpus = h.free_gpus - v.pods * $3::int,
              free_cpu_slots = h.free_cpu_slots - v.pods * $4::int,
              free_ports = h.free_ports - v.pods * $5::int
         FROM unnest($1::text[], $2::int[]) AS v(id, pods)
         JOIN locked l ON l.id = v.id
        WHERE h.id = v.id AND ${schedulableSql('h')}
          AND h.free_gpus >= v.pods * $3::int AND h.free_cpu_slots >= v.pods * $4::int
          AND h.free_ports >= v.pods * $5::int
       RETURNING ${returning}`;
}

@Injectable()
export class PlacementRepository implements PodsMountingVolume {
  constructor(private readonly dataSource: DataSource) {}

  mountingVolume(volumeId: string, manager: EntityManager): Promise<number> {
    return manager.countBy(ReservationEntity, { networkVolumeId: volumeId });
  }
  /**
   * The data centers, and the hosts the request's placement may use now (not locked: the commit re-checks), in ONE
   * statement (snapshot-statement.ts: per data center, the hosts the packing order reaches before the pods fit):
   * both come back as JSON, which costs less to decode than rows field by field. `full`: every host of the type,
   * full ones too (preemption plans with what it would free on them).
   */
  async snapshot(manager: EntityManager, request: PlacementRequest, full = false): Promise<FleetSnapshot> {
    const { text, params } = snapshotStatement(request, full);
    const [row]: { data_centers: DataCenterInfo[]; hosts: HostTuple[] }[] = await manager.query(text, params);
    const hosts: HostCapacity[] = row.hosts.map((h) => ({
      id: h[0],
      dataCenterId: h[1],
      gpuTypeId: h[2],
      gpuCount: h[3],
      freeGpus: h[4],
      cpuTypeId: h[5],
      cpuSlots: h[6],
      freeCpuSlots: h[7],
      freePorts: h[8],
    }));
    return { dataCenters: row.data_centers, hosts };
  }

  /**
   * Takes the capacity of every claim, in three statements on the transaction's connection whatever the number of
   * pods, in two round trips: (1) locks the hosts in id order (no deadlock between two commits) and takes GPUs, CPU
   * slots and port counts with one guarded UPDATE (`free >= n`, and CHECK constraints behind it); (2) reads the
   * ports the locked hosts already map, to pick the lowest free ones; (3) inserts the reservations and their ports. Throws
   * LostRaceError when a host no longer has what the plan counted on. Returns the port mappings per pod and the
   * hosts' addresses.
   */
  async commit(manager: EntityManager, terms: ClaimTerms, claims: readonly PodClaim[]): Promise<Commitment> {
    const perHost = new Map<string, number>();
    for (const claim of claims) perHost.set(claim.hostId, (perHost.get(claim.hostId) ?? 0) + 1);
    const hostIds = [...perHost.keys()].sort();
    const pods = hostIds.map((id) => perHost.get(id)!);
    // A host changed by a transaction that committed while we waited is re-checked against its newest version
    // (READ COMMITTED re-evaluates the guards), hence the row count check.
    // The mapped ports are read in the same round trip: the connection pipelines the two statements, both sent
    // unnamed through preparedQuery in call order, and Postgres runs the read after the UPDATE, so it sees every
    // port of the hosts the UPDATE has locked by then.
    const [updated, used] = await Promise.all([
      preparedQuery<HostAddressRow>(
        manager,
        undefined,
        `WITH ${LOCK_HOSTS} ${takeHostsSql('h.id, h.public_ip, h.port_start, h.port_end')}`,
        [hostIds, pods, terms.gpuCount, terms.cpuSlots, terms.ports.length],
      ),
      this.usedPorts(manager, terms, hostIds),
    ]);
    const rows = returningRows(updated);
    if (rows.length !== hostIds.length) {
      throw new LostRaceError(
        `${hostIds.length - rows.length} of ${hostIds.length} hosts no longer have the capacity`,
      );
    }
    const hosts = new Map(rows.map((r) => [r.id, hostAddress(r)]));
    const mappings = allocatePorts(terms.ports, claims, hosts, used);
    // One statement for both tables (host_ports' foreign key to the reservation is checked at its end). What the
    // pods share goes once, as scalars; each pod's mappings go as ONE JSON array, matched to the pods by position:
    // as 250 elements of a jsonb[] (and 250 of each shared field), node-pg escaped every element into an array
    // literal and Postgres took it apart again. The ports' rows are the mappings' entries.
    await manager.query(
      `WITH claim AS MATERIALIZED (
         SELECT c.pod_id, c.host_id, m.mapping
           FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS c(pod_id, host_id, n)
           JOIN json_array_elements($3::json) WITH ORDINALITY AS m(mapping, n) USING (n)
       ), reserved AS (
         INSERT INTO ${table('reservations')} (pod_id, owner_id, cluster_id, host_id, data_center_id, gpu_type_id,
                                               gpu_count, cpu_slots, network_volume_id, port_mappings, created_at,
                                               priority, interruptible)
         SELECT pod_id, $4::text, $5::text, host_id, $6::text, $7::text, $8::int, $9::int, $10::text,
                mapping::jsonb, $11::timestamptz, $12::smallint, $13::boolean
           FROM claim
       )
       INSERT INTO ${table('host_ports')} (host_id, port, pod_id)
       SELECT claim.host_id, p.port::int, claim.pod_id FROM claim, json_each_text(claim.mapping) AS p(spec, port)`,
      [
        claims.map((c) => c.podId),
        claims.map((c) => c.hostId),
        JSON.stringify(claims.map((c) => mappings.get(c.podId) ?? {})),
        terms.ownerId,
        terms.clusterId,
        terms.dataCenterId,
        terms.gpuTypeId,
        terms.gpuCount,
        terms.cpuSlots,
        terms.networkVolumeId,
        terms.createdAt,
        terms.priority,
        terms.interruptible,
      ],
    );
    return { mappings, hosts };
  }

  /** The ports the claims' (locked) hosts map already; none read when the pods map no port. */
  private async usedPorts(
    manager: EntityManager,
    terms: ClaimTerms,
    hostIds: readonly string[],
  ): Promise<{ hostId: string; port: number }[]> {
    if (!terms.ports.length) return [];
    return preparedQuery(
      manager,
      undefined,
      `SELECT host_id AS "hostId", port FROM ${table('host_ports')} WHERE host_id = ANY($1::text[])`,
      [hostIds],
    );
  }

  findReservation(
    podId: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<ReservationEntity | null> {
    return manager.findOneBy(ReservationEntity, { podId });
  }

  /** A held reservation's port mappings (null: none held); one per pod status event, so a prepared statement. */
  async reservedPortMappings(podId: string, manager: EntityManager): Promise<Record<string, number> | null> {
    const rows = await preparedQuery<{ mappings: Record<string, number> }>(
      manager,
      'placement.reserved-port-mappings',
      `SELECT port_mappings AS mappings FROM ${table('reservations')} WHERE pod_id = $1`,
      [podId],
    );
    return rows[0]?.mappings ?? null;
  }

  /**
   * Dates a held reservation `at` when that is later than its date: the pod confirmed it then (a resume), so a
   * release for a stop before that (`notAfter`) no longer takes it.
   */
  async renewReservation(podId: string, at: Date, manager: EntityManager): Promise<void> {
    await manager.query(
      `UPDATE ${table('reservations')} SET created_at = $2 WHERE pod_id = $1 AND created_at < $2`,
      [podId, at],
    );
  }

  async hostAddresses(hostIds: readonly string[], manager: EntityManager): Promise<Map<string, HostAddress>> {
    const rows: HostAddressRow[] = await manager.query(
      `SELECT id, public_ip, port_start, port_end FROM ${table('hosts')} WHERE id = ANY($1::text[])`,
      [[...new Set(hostIds)]],
    );
    return new Map(rows.map((r) => [r.id, hostAddress(r)]));
  }

  /**
   * Takes the placement ledger's lock (a transaction-scoped advisory lock) until the transaction ends: every
   * placement and release holds it, so they apply one at a time, each seeing all the ones before it, in the order
   * their processed rows are written (which a rebuild follows). Without it, two placements running side by side
   * planned from what each saw, and the hosts and ports they got depended on timing. Sent without waiting in a
   * command's transaction (writeBehind): the statement after it leaves with it, and Postgres runs that one once
   * the lock is granted, so nothing reads the ledger before holding it; one round trip fewer per placement.
   *
   * Whatever takes the lock may then change what a lane's batch of reserves read ahead (ReserveBatch): those reads
   * are dropped (a reserve that reads ahead takes the lock first).
   */
  lockLedger(manager: EntityManager): Promise<void> {
    transactionScratch(manager)?.delete(ReserveBatch);
    return writeBehind(manager, 'placement.lock-ledger', LOCK_LEDGER, [PLACEMENT_LEDGER_LOCK]);
  }

  /**
   * Frees a pod's reservation (GPUs, CPU slot, ports) if it holds one made no later than `notAfter`; idempotent.
   * Returns the reservation freed, or null.
   */
  async release(manager: EntityManager, podId: string, notAfter?: Date): Promise<ReservationEntity | null> {
    await this.lockLedger(manager);
    const deleted: Record<string, unknown>[] = await manager.query(
      `DELETE FROM ${table('reservations')} WHERE pod_id = $1 ${notAfter ? 'AND created_at <= $2' : ''}
       RETURNING pod_id, host_id, gpu_count, cpu_slots, port_mappings`,
      notAfter ? [podId, notAfter] : [podId],
    );
    const rows = returningRows(deleted);
    if (!rows.length) return null;
    const row = rows[0];
    const ports = Object.keys((row.port_mappings as Record<string, number>) ?? {}).length;
    await manager.query(
      `UPDATE ${table('hosts')} SET free_gpus = free_gpus + $2, free_cpu_slots = free_cpu_slots + $3, free_ports = free_ports + $4
        WHERE id = $1`,
      [row.host_id, row.gpu_count, row.cpu_slots, ports],
    );
    return Object.assign(new ReservationEntity(), {
      podId: row.pod_id as string,
      hostId: row.host_id as string,
      gpuCount: row.gpu_count as number,
      cpuSlots: row.cpu_slots as number,
    });
  }
}
