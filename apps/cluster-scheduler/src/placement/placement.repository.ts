import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { DataCenterEntity } from '../catalog/data-center.entity.js';
import type { FleetSnapshot, HostCapacity, PlacementRequest } from './placement.js';
import { ReservationEntity } from './reservation.entity.js';
import { table } from '../schema.js';

/** Another transaction took some of the capacity this one planned on: plan again on a fresh snapshot. */
export class LostRaceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LostRaceError';
  }
}

/** One pod's share of a plan: which host, how much of it, which ports to map. */
export interface PodClaim {
  podId: string;
  ownerId: string;
  clusterId: string | null;
  hostId: string;
  dataCenterId: string;
  gpuTypeId: string | null;
  gpuCount: number;
  cpuSlots: number;
  networkVolumeId: string | null;
  ports: readonly string[];
  createdAt: Date;
}

export interface HostAddress {
  id: string;
  publicIp: string;
  portStart: number;
  portEnd: number;
}

interface HostRow {
  id: string;
  data_center_id: string;
  gpu_type_id: string | null;
  gpu_count: number;
  free_gpus: number;
  cpu_type_id: string | null;
  cpu_slots: number;
  free_cpu_slots: number;
  free_ports: number;
}

/** TypeORM answers UPDATE/DELETE ... RETURNING with `[rows, rowCount]` and other statements with the rows. */
function returningRows<T>(result: T[] | [T[], number]): T[] {
  return (Array.isArray(result[0]) ? result[0] : result) as T[];
}

/** The capacity ledger: snapshots for placement, and the commit the database guards against double booking. */
@Injectable()
export class PlacementRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The hosts that could take at least one pod of the request now (not locked: the commit re-checks). */
  async snapshot(manager: EntityManager, request: PlacementRequest): Promise<FleetSnapshot> {
    const dataCenters = await manager.find(DataCenterEntity, { order: { id: 'ASC' } });
    const where = ['active', 'free_ports >= $1'];
    const params: unknown[] = [request.portsPerPod];
    if (request.gpuTypeId !== null) {
      params.push(request.gpuTypeId, Math.max(1, request.gpusPerPod));
      where.push(`gpu_type_id = $${params.length - 1}`, `free_gpus >= $${params.length}`);
    } else {
      where.push('free_cpu_slots >= 1');
      if (request.cpuTypeId !== null) {
        params.push(request.cpuTypeId);
        where.push(`cpu_type_id = $${params.length}`);
      }
    }
    if (request.volumeDataCenterId !== null) {
      params.push(request.volumeDataCenterId);
      where.push(`data_center_id = $${params.length}`);
    } else if (request.dataCenterIds.length) {
      params.push(request.dataCenterIds);
      where.push(`data_center_id = ANY($${params.length}::text[])`);
    }
    if (request.hostId !== null) {
      params.push(request.hostId);
      where.push(`id = $${params.length}`);
    }
    const rows: HostRow[] = await manager.query(
      `SELECT id, data_center_id, gpu_type_id, gpu_count, free_gpus, cpu_type_id, cpu_slots, free_cpu_slots,
              free_ports
         FROM ${table('hosts')} WHERE ${where.join(' AND ')}`,
      params,
    );
    const hosts: HostCapacity[] = rows.map((r) => ({
      id: r.id,
      dataCenterId: r.data_center_id,
      gpuTypeId: r.gpu_type_id,
      gpuCount: r.gpu_count,
      freeGpus: r.free_gpus,
      cpuTypeId: r.cpu_type_id,
      cpuSlots: r.cpu_slots,
      freeCpuSlots: r.free_cpu_slots,
      freePorts: r.free_ports,
    }));
    return { dataCenters: dataCenters.map((dc) => ({ id: dc.id, region: dc.region })), hosts };
  }

  /**
   * Takes the capacity of every claim: locks the hosts in id order (no deadlock between two commits), takes
   * GPUs, CPU slots and port counts with one guarded UPDATE (`free >= n`, and CHECK constraints behind it), then
   * picks the lowest free public ports of each host and records the reservations and their ports. Throws
   * LostRaceError when a host no longer has what the plan counted on. Returns the port mappings per pod.
   */
  async commit(
    manager: EntityManager,
    claims: readonly PodClaim[],
  ): Promise<Map<string, Record<string, number>>> {
    const perHost = new Map<string, { gpus: number; cpus: number; ports: number }>();
    for (const claim of claims) {
      const total = perHost.get(claim.hostId) ?? { gpus: 0, cpus: 0, ports: 0 };
      total.gpus += claim.gpuCount;
      total.cpus += claim.cpuSlots;
      total.ports += claim.ports.length;
      perHost.set(claim.hostId, total);
    }
    const hostIds = [...perHost.keys()].sort();
    await manager.query(
      `SELECT id FROM ${table('hosts')} WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE`,
      [hostIds],
    );
    const updated: { id: string; public_ip: string; port_start: number; port_end: number }[] =
      await manager.query(
        `UPDATE ${table('hosts')} h
          SET free_gpus = h.free_gpus - v.gpus,
              free_cpu_slots = h.free_cpu_slots - v.cpus,
              free_ports = h.free_ports - v.ports
         FROM unnest($1::text[], $2::int[], $3::int[], $4::int[]) AS v(id, gpus, cpus, ports)
        WHERE h.id = v.id AND h.active
          AND h.free_gpus >= v.gpus AND h.free_cpu_slots >= v.cpus AND h.free_ports >= v.ports
        RETURNING h.id, h.public_ip, h.port_start, h.port_end`,
        [
          hostIds,
          hostIds.map((id) => perHost.get(id)!.gpus),
          hostIds.map((id) => perHost.get(id)!.cpus),
          hostIds.map((id) => perHost.get(id)!.ports),
        ],
      );
    const rows = returningRows(updated);
    if (rows.length !== hostIds.length) {
      throw new LostRaceError(
        `${hostIds.length - rows.length} of ${hostIds.length} hosts no longer have the capacity`,
      );
    }
    const mappings = await this.allocatePorts(
      manager,
      claims,
      new Map(
        rows.map((r) => [
          r.id,
          { id: r.id, publicIp: r.public_ip, portStart: r.port_start, portEnd: r.port_end },
        ]),
      ),
    );
    await manager.insert(
      ReservationEntity,
      claims.map((claim) => ({
        podId: claim.podId,
        ownerId: claim.ownerId,
        clusterId: claim.clusterId,
        hostId: claim.hostId,
        dataCenterId: claim.dataCenterId,
        gpuTypeId: claim.gpuTypeId,
        gpuCount: claim.gpuCount,
        cpuSlots: claim.cpuSlots,
        networkVolumeId: claim.networkVolumeId,
        portMappings: mappings.get(claim.podId) ?? {},
        createdAt: claim.createdAt,
      })),
    );
    const portRows = claims.flatMap((claim) =>
      Object.values(mappings.get(claim.podId) ?? {}).map((port) => ({
        hostId: claim.hostId,
        port,
        podId: claim.podId,
      })),
    );
    if (portRows.length) {
      await manager.query(
        `INSERT INTO ${table('host_ports')} (host_id, port, pod_id)
         SELECT * FROM unnest($1::text[], $2::int[], $3::text[])`,
        [portRows.map((r) => r.hostId), portRows.map((r) => r.port), portRows.map((r) => r.podId)],
      );
    }
    return mappings;
  }

  /** The lowest free ports of each (locked) host, in claim order. */
  private async allocatePorts(
    manager: EntityManager,
    claims: readonly PodClaim[],
    hosts: Map<string, HostAddress>,
  ): Promise<Map<string, Record<string, number>>> {
    const result = new Map<string, Record<string, number>>();
    const needing = [...new Set(claims.filter((c) => c.ports.length).map((c) => c.hostId))];
    if (!needing.length) return result;
    const used: { host_id: string; port: number }[] = await manager.query(
      `SELECT host_id, port FROM ${table('host_ports')} WHERE host_id = ANY($1::text[])`,
      [needing],
    );
    const taken = new Map<string, Set<number>>();
    for (const row of used) {
      const set = taken.get(row.host_id) ?? new Set<number>();
      set.add(row.port);
      taken.set(row.host_id, set);
    }
    const cursor = new Map<string, number>();
    for (const claim of claims) {
      const host = hosts.get(claim.hostId)!;
      const set = taken.get(host.id) ?? new Set<number>();
      taken.set(host.id, set);
      let next = cursor.get(host.id) ?? host.portStart;
      const mapping: Record<string, number> = {};
      for (const spec of claim.ports) {
        while (set.has(next)) next++;
        if (next > host.portEnd) throw new LostRaceError(`host ${host.id} has run out of public ports`);
        mapping[spec] = next;
        set.add(next);
      }
      cursor.set(host.id, next);
      result.set(claim.podId, mapping);
    }
    return result;
  }

  findReservation(
    podId: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<ReservationEntity | null> {
    return manager.findOneBy(ReservationEntity, { podId });
  }

  async hostAddresses(hostIds: readonly string[], manager: EntityManager): Promise<Map<string, HostAddress>> {
    const rows: { id: string; public_ip: string; port_start: number; port_end: number }[] =
      await manager.query(
        `SELECT id, public_ip, port_start, port_end FROM ${table('hosts')} WHERE id = ANY($1::text[])`,
        [[...new Set(hostIds)]],
      );
    return new Map(
      rows.map((r) => [
        r.id,
        { id: r.id, publicIp: r.public_ip, portStart: r.port_start, portEnd: r.port_end },
      ]),
    );
  }

  async hostExists(hostId: string, manager: EntityManager): Promise<boolean> {
    const rows: unknown[] = await manager.query(`SELECT 1 FROM ${table('hosts')} WHERE id = $1`, [hostId]);
    return rows.length > 0;
  }

  /**
   * Frees a pod's reservation (GPUs, CPU slot, ports) if it holds one made no later than `notAfter`; idempotent.
   * Returns the reservation freed, or null.
   */
  async release(manager: EntityManager, podId: string, notAfter?: Date): Promise<ReservationEntity | null> {
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

  /** Pods holding a reservation with this network volume mounted. */
  async countVolumeReservations(volumeId: string, manager: EntityManager): Promise<number> {
    return manager.countBy(ReservationEntity, { networkVolumeId: volumeId });
  }
}
