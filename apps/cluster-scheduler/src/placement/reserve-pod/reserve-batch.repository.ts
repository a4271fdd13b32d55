import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { joinedEntity, preparedQuery, writeBehind } from '@app/database';
import { CatalogRepository } from '../../catalog/catalog.repository.js';
import { QuotaAdmission } from '../quota-admission.js';
import { ClusterMembership } from '../cluster-membership.js';
import { LOCK_HOSTS, takeHostsSql, type ClaimTerms, type HostTuple } from '../placement.repository.js';
import type { PlacementRequest } from '../placement.js';
import type { PodClaim } from '../port-allocation.js';
import { ReservationEntity } from '../reservation.entity.js';
import { readAheadStatement } from '../snapshot-statement.js';
import { table } from '../../schema.js';
import { ReserveBatch, ledgerKey, shapeKey, type BatchHost, type ShapeSnapshot } from './reserve-batch.js';

/** A read-ahead host as its statement encodes it (AHEAD_COLUMNS): a snapshot host, then its address and ports. */
type AheadTuple = [...HostTuple, publicIp: string, portStart: number, portEnd: number];

interface AheadRow {
  data_centers: ShapeSnapshot['dataCenters'];
  hosts: AheadTuple[];
  incomplete: string[];
  ports: [hostId: string, port: number][];
}

/** A name for each read-ahead statement's text (a few, one per kind of request): prepared once per connection. */
const statementNames = new Map<string, string>();
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (!name) statementNames.set(text, (name = `placement.read-ahead.${statementNames.size + 1}`));
  return name;
}

/** One reserve as the read-ahead sees it: its pod, owner and GPU type, and its request when it may be planned here. */
export interface AheadReserve {
  podId: string;
  ownerId: string;
  gpuTypeId: string | null;
  namesDataCenters: boolean;
  /** Null: placed the usual way (a network volume), nothing to read ahead for its plan. */
  request: PlacementRequest | null;
}

/**
 * What a lane's batch of reserves reads ahead and writes (ReservePodHandler): every read its reserves make before they
 * place, for all of them in one round trip, and each placement's claim in one statement sent without waiting.
 */
@Injectable()
export class ReserveBatchRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly catalog: CatalogRepository,
    private readonly clusters: ClusterMembership,
    private readonly admission: QuotaAdmission,
  ) {}

  /**
   * The reads of `reserves` (the command at hand and those after it in the transaction), pipelined: one round trip.
   * Under the ledger's lock, which the caller took; the snapshot of each request shape is bounded by the pods of
   * that shape.
   */
  async read(manager: EntityManager, reserves: readonly AheadReserve[]): Promise<ReserveBatch> {
    const batch = new ReserveBatch();
    const podIds = [...new Set(reserves.map((r) => r.podId))];
    const gpuTypeIds = [...new Set(reserves.flatMap((r) => (r.gpuTypeId === null ? [] : [r.gpuTypeId])))];
    const ledgers = new Map<string, [string, string]>();
    const shapes = new Map<string, { request: PlacementRequest; pods: number }>();
    for (const r of reserves) {
      if (!r.request) continue;
      if (r.gpuTypeId !== null) ledgers.set(ledgerKey(r.ownerId, r.gpuTypeId), [r.ownerId, r.gpuTypeId]);
      const key = shapeKey(r.request);
      const shape = shapes.get(key);
      if (shape) shape.pods += r.request.podCount;
      else shapes.set(key, { request: r.request, pods: r.request.podCount });
    }
    const [held, members, catalog, dataCenters, ledgerRows, snapshots] = await Promise.all([
      this.held(manager, podIds),
      this.clusters.clustersOfMembers(podIds, manager),
      this.catalog.reserveCatalog(gpuTypeIds, manager),
      reserves.some((r) => r.namesDataCenters) ? this.catalog.dataCenters(manager) : null,
      this.admission.ledgers(
        manager,
        [...ledgers.values()].map(([accountId, gpuTypeId]) => ({ accountId, gpuTypeId })),
      ),
      Promise.all(
        [...shapes.values()].map(async ({ request, pods }) => {
          const { text, params } = readAheadStatement(request, pods);
          const [row] = await preparedQuery<AheadRow>(manager, statementName(text), text, params);
          return row;
        }),
      ),
    ]);
    const heldBy = new Map(held.map((r) => [r.podId, r]));
    for (const podId of podIds) {
      batch.pods.set(podId, { held: heldBy.get(podId) ?? null, clusterId: members.get(podId) ?? null });
    }
    for (const id of gpuTypeIds) batch.gpuTypes.set(id, catalog.gpuTypes.find((g) => g.id === id) ?? null);
    for (const [id, price] of catalog.gpuPrices) batch.gpuPrices.set(id, price);
    for (const [id, price] of catalog.cpuPrices) batch.cpuPrices.set(id, price);
    batch.diskPrice = catalog.diskPrice;
    batch.dataCenters = dataCenters;
    [...ledgers.keys()].forEach((key, i) => batch.ledgers.set(key, ledgerRows[i]));
    [...shapes.entries()].forEach(([key, { request }], i) => {
      const row = snapshots[i];
      for (const h of row.hosts) {
        // Two shapes may read one host: the same row, read at the same moment.
        if (batch.hosts.has(h[0])) continue;
        batch.hosts.set(h[0], hostOf(h));
      }
      for (const [hostId, port] of row.ports) batch.hosts.get(hostId)?.used.add(port);
      batch.shapes.set(key, {
        dataCenters: row.data_centers,
        hostIds: new Set(row.hosts.map((h) => h[0])),
        incomplete: new Set(row.incomplete),
        gpuTypeId: request.gpuTypeId,
      });
    });
    return batch;
  }

  /** The reservations the pods hold (entities, as TypeORM reads them), in one prepared statement. */
  private async held(manager: EntityManager, podIds: readonly string[]): Promise<ReservationEntity[]> {
    const reservation = joinedEntity(this.dataSource, ReservationEntity, 'r', '');
    const rows = await preparedQuery<Record<string, unknown>>(
      manager,
      'placement.held-reservations',
      `SELECT ${reservation.select} FROM ${table('reservations')} r WHERE r.pod_id = ANY($1::text[])`,
      [podIds],
    );
    return rows.map((row) => reservation.from(row)!);
  }

  /**
   * Takes the claims' capacity and writes their reservations and ports in ONE statement, sent without waiting (its
   * failure fails the transaction at its end, and a lane's batch is then applied again one command at a time). The
   * plan came from what the batch read under the ledger's lock with its own claims folded in, so the hosts have
   * what it counted on; the guards stay, and a host that had not would fail the statement (the count check) rather
   * than be skipped. Hosts are locked in id order, as PlacementRepository.commit locks them.
   */
  claim(
    manager: EntityManager,
    terms: ClaimTerms,
    claims: readonly PodClaim[],
    mappings: ReadonlyMap<string, Record<string, number>>,
  ): Promise<void> {
    const perHost = new Map<string, number>();
    for (const claim of claims) perHost.set(claim.hostId, (perHost.get(claim.hostId) ?? 0) + 1);
    const hostIds = [...perHost.keys()].sort();
    return writeBehind(
      manager,
      'placement.claim-behind',
      `WITH ${LOCK_HOSTS}, taken AS (
         ${takeHostsSql('h.id')}
       ), claim AS MATERIALIZED (
         SELECT c.pod_id, c.host_id, m.mapping
           FROM unnest($6::text[], $7::text[]) WITH ORDINALITY AS c(pod_id, host_id, n)
           JOIN json_array_elements($8::json) WITH ORDINALITY AS m(mapping, n) USING (n)
          WHERE c.host_id IN (SELECT id FROM taken)
       ), reserved AS (
         INSERT INTO ${table('reservations')} (pod_id, owner_id, cluster_id, host_id, data_center_id, gpu_type_id,
                                               gpu_count, cpu_slots, network_volume_id, port_mappings, created_at,
                                               priority, interruptible)
         SELECT pod_id, $9::text, $10::text, host_id, $11::text, $12::text, $3::int, $4::int, $13::text,
                mapping::jsonb, $14::timestamptz, $15::smallint, $16::boolean
           FROM claim
       ), ported AS (
         INSERT INTO ${table('host_ports')} (host_id, port, pod_id)
         SELECT claim.host_id, p.port::int, claim.pod_id FROM claim, json_each_text(claim.mapping) AS p(spec, port)
       )
       -- A host short of what the plan counted on fails the statement, naming it, rather than writing less.
       -- (A cast of text that names the count: it depends on the subquery, so it is not folded when planned.)
       SELECT CASE WHEN n = cardinality($1::text[]) THEN 0
                   ELSE ('placement: ' || n || ' of the claimed hosts had the capacity planned')::int END AS checked
         FROM (SELECT count(*) AS n FROM taken) t`,
      [
        hostIds,
        hostIds.map((id) => perHost.get(id)!),
        terms.gpuCount,
        terms.cpuSlots,
        terms.ports.length,
        claims.map((c) => c.podId),
        claims.map((c) => c.hostId),
        JSON.stringify(claims.map((c) => mappings.get(c.podId) ?? {})),
        terms.ownerId,
        terms.clusterId,
        terms.dataCenterId,
        terms.gpuTypeId,
        terms.networkVolumeId,
        terms.createdAt,
        terms.priority,
        terms.interruptible,
      ],
    );
  }
}

function hostOf(h: AheadTuple): BatchHost {
  return {
    id: h[0],
    dataCenterId: h[1],
    gpuTypeId: h[2],
    gpuCount: h[3],
    freeGpus: h[4],
    cpuTypeId: h[5],
    cpuSlots: h[6],
    freeCpuSlots: h[7],
    freePorts: h[8],
    publicIp: h[9],
    portStart: h[10],
    portEnd: h[11],
    used: new Set<number>(),
  };
}
