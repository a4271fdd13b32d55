import type { GpuTypeEntity } from '../../catalog/gpu-type.entity.js';
import type { DataCenterEntity } from '../../catalog/data-center.entity.js';
import type { Ledger } from '../../quotas/quota-ledger.js';
import {
  assign,
  consideredDataCenters,
  place,
  type DataCenterInfo,
  type FleetSnapshot,
  type HostCapacity,
  type PlacementPlugins,
  type PlacementRequest,
  type PlacementResult,
} from '../placement.js';
import type { HostAddress } from '../port-allocation.js';
import type { ReservationEntity } from '../reservation.entity.js';

/** A host as a batch's reserves see it: its capacity now (their own claims folded in), address and mapped ports. */
export interface BatchHost extends HostCapacity, HostAddress {
  used: Set<number>;
}

/** What one read-ahead snapshot statement answered for the reserves of one request shape (`shapeKey`). */
export interface ShapeSnapshot {
  dataCenters: DataCenterInfo[];
  /** The hosts it read: per data center, a prefix of the packing order. */
  hostIds: Set<string>;
  /** The data centers whose candidate hosts it did not read to the end. */
  incomplete: Set<string>;
  /** Its GPU type (null: CPU pods). */
  gpuTypeId: string | null;
}

/** What a reserve reads first about its own pod. */
export interface PodReads {
  held: ReservationEntity | null;
  clusterId: string | null;
}

/** A pod's claim on one host, as written: what the ledger and the host's counters change by. */
export interface FoldedClaim {
  ownerId: string;
  gpuTypeId: string | null;
  dataCenterId: string;
  hostId: string;
  gpus: number;
  cpuSlots: number;
  ports: readonly number[];
}

/** The request's shape: everything its snapshot statement depends on but the pod count. */
export function shapeKey(request: PlacementRequest): string {
  return JSON.stringify({ ...request, podCount: 0 });
}

/** The ledger's key: one account's ledger of one GPU type. */
export const ledgerKey = (ownerId: string, gpuTypeId: string): string => `${ownerId}\u0000${gpuTypeId}`;

/**
 * The plan `place` makes over the whole fleet, from hosts read per data center up to a bound, or null when those
 * may not be enough to tell. Each data center's hosts were read in packing order (snapshot-statement.ts); a host
 * read has only lost capacity since (this batch's claims), which only moves it forward in that order, and a host
 * not read is unchanged, so every host read still comes before every host not read. Where `assign` places all the
 * pods on hosts read, it places them there in the whole fleet too; where it cannot, a data center read to the end
 * has no room, and one that was not says nothing: then null.
 */
export function surePlace(
  snapshot: FleetSnapshot,
  incomplete: ReadonlySet<string>,
  request: PlacementRequest,
  plugins: PlacementPlugins,
): PlacementResult | null {
  for (const dc of consideredDataCenters(snapshot.dataCenters, request, plugins.dataCenterFilters)) {
    if (!incomplete.has(dc.id)) continue;
    const hosts = snapshot.hosts.filter(
      (h) => h.dataCenterId === dc.id && plugins.hostFilters.every((f) => f.accepts(h, request)),
    );
    if (!assign(hosts, request, plugins.hostScorers)) return null;
  }
  return place(snapshot, request, plugins);
}

/**
 * What a lane's batch of reserves read ahead in one round trip, under the placement ledger's lock, which the
 * transaction holds to its end: no other transaction changes the hosts, the reservations or the quotas meanwhile,
 * so these stay what a read would answer as long as this transaction's own writes are folded in (`fold`). Any other
 * placement write takes the ledger's lock again (PlacementRepository.lockLedger), which drops the whole batch.
 */
export class ReserveBatch {
  readonly pods = new Map<string, PodReads>();
  /** The GPU types asked for; null: not a type of the catalog. */
  readonly gpuTypes = new Map<string, GpuTypeEntity | null>();
  /** Prices as the catalog stores them: GPU types', CPU types', the container disk's per GB-hour. */
  readonly gpuPrices = new Map<string, number | string | null>();
  readonly cpuPrices = new Map<string, number | string | null>();
  diskPrice: number | string | null = null;
  /** Read only when a reserve names data centers. */
  dataCenters: DataCenterEntity[] | null = null;
  readonly ledgers = new Map<string, Ledger | null>();
  readonly shapes = new Map<string, ShapeSnapshot>();
  readonly hosts = new Map<string, BatchHost>();

  /** The pod's first reads, once: a second reserve of the pod in the batch reads again (its first changed them). */
  takePod(podId: string): PodReads | undefined {
    const reads = this.pods.get(podId);
    this.pods.delete(podId);
    return reads;
  }

  /** The snapshot of the request's shape with the hosts' capacity now, and where it may not tell; or undefined. */
  snapshot(request: PlacementRequest): { snapshot: FleetSnapshot; incomplete: Set<string> } | undefined {
    const shape = this.shapes.get(shapeKey(request));
    if (!shape) return undefined;
    const hosts = [...shape.hostIds].map((id) => this.hosts.get(id)!);
    return { snapshot: { dataCenters: shape.dataCenters, hosts }, incomplete: shape.incomplete };
  }

  /** A claim this transaction wrote, folded into the hosts, the snapshots and the ledgers it changes. */
  fold(claim: FoldedClaim): void {
    const host = this.hosts.get(claim.hostId)!;
    host.freeGpus -= claim.gpus;
    host.freeCpuSlots -= claim.cpuSlots;
    host.freePorts -= claim.ports.length;
    for (const port of claim.ports) host.used.add(port);
    // A snapshot that did not read the host may now order it wrongly: its rank in the packing order rose.
    for (const [key, shape] of this.shapes) {
      if (shape.hostIds.has(host.id)) continue;
      if (shape.gpuTypeId === null || shape.gpuTypeId === host.gpuTypeId) this.shapes.delete(key);
    }
    if (claim.gpuTypeId === null || claim.gpus === 0) return;
    for (const ledger of this.ledgers.values()) {
      if (!ledger || ledger.gpuTypeId !== claim.gpuTypeId) continue;
      const counted =
        ledger.own?.accountId === claim.ownerId || ledger.peers.some((p) => p.accountId === claim.ownerId);
      if (!counted) continue;
      const row = ledger.usage.find(
        (u) => u.ownerId === claim.ownerId && u.dataCenterId === claim.dataCenterId,
      );
      if (row) row.gpus += claim.gpus;
      else ledger.usage.push({ ownerId: claim.ownerId, dataCenterId: claim.dataCenterId, gpus: claim.gpus });
    }
  }
}
