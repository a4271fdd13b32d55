import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { preparedQuery } from '@app/database';
import type { UsageRates } from '@app/contracts';
import { CpuTypeEntity } from './cpu-type.entity.js';
import { DataCenterEntity } from './data-center.entity.js';
import { FleetLoadEntity } from './fleet-load.entity.js';
import type { FleetFile } from './fleet-file.js';
import { GpuTypeEntity } from './gpu-type.entity.js';
import { HostEntity, schedulableSql } from './host.entity.js';
import { placementRates } from './prices.js';
import { StoragePriceEntity } from './storage-price.entity.js';
import { table } from '../schema.js';

/** Live capacity of one GPU type in one data center. */
export interface GpuCapacityRow {
  gpuTypeId: string;
  dataCenterId: string;
  hosts: number;
  totalGpus: number;
  freeGpus: number;
  maxFreeOnOneHost: number;
}

export interface CpuCapacityRow {
  cpuTypeId: string;
  dataCenterId: string;
  totalSlots: number;
  freeSlots: number;
}

/** A gpu_types row as `row_to_json` gives it. */
interface GpuTypeRow {
  id: string;
  display_name: string;
  manufacturer: string;
  memory_in_gb: number;
  max_count: number;
  tier: GpuTypeEntity['tier'];
  price_per_hr: string;
}

function gpuTypeOf(g: GpuTypeRow): GpuTypeEntity {
  return Object.assign(new GpuTypeEntity(), {
    id: g.id,
    displayName: g.display_name,
    manufacturer: g.manufacturer,
    memoryInGb: g.memory_in_gb,
    maxCount: g.max_count,
    tier: g.tier,
    pricePerHr: Number(g.price_per_hr),
  });
}

/** The catalog a batch of reserves reads (`reserveCatalog`); prices as the columns hold them. */
export interface ReserveCatalog {
  gpuTypes: GpuTypeEntity[];
  gpuPrices: Map<string, string>;
  cpuPrices: Map<string, string>;
  diskPrice: string | null;
}

/** Any fixed 64-bit number: the advisory lock that serialises fleet loads of several replicas. */
const FLEET_LOCK = 0x666c656574;

@Injectable()
export class CatalogRepository {
  constructor(private readonly dataSource: DataSource) {}

  gpuTypes(manager: EntityManager = this.dataSource.manager): Promise<GpuTypeEntity[]> {
    return manager.find(GpuTypeEntity, { order: { memoryInGb: 'ASC', id: 'ASC' } });
  }

  findGpuType(id: string, manager: EntityManager = this.dataSource.manager): Promise<GpuTypeEntity | null> {
    return manager.findOneBy(GpuTypeEntity, { id });
  }

  /**
   * A GPU type (null when unknown) and which of `dataCenterIds` name data centers, in one statement: what a
   * create needs to validate its request before placing it.
   */
  async gpuTypeAndKnownDataCenters(
    gpuTypeId: string,
    dataCenterIds: readonly string[],
    manager: EntityManager,
  ): Promise<{ gpuType: GpuTypeEntity | null; known: Set<string> }> {
    const [row]: { gpu_type: GpuTypeRow | null; known: string[] }[] = await manager.query(
      `SELECT (SELECT row_to_json(g) FROM ${table('gpu_types')} g WHERE g.id = $1) AS gpu_type,
              ARRAY(SELECT id FROM ${table('data_centers')} WHERE id = ANY($2::text[])) AS known`,
      [gpuTypeId, dataCenterIds],
    );
    return { gpuType: row.gpu_type ? gpuTypeOf(row.gpu_type) : null, known: new Set(row.known) };
  }

  /**
   * What a batch of reserves needs of the catalog, in one statement: its GPU types, and the prices their rates are
   * computed from (`rates`, for any host): the types' and every CPU type's, and the container disk's.
   */
  async reserveCatalog(gpuTypeIds: readonly string[], manager: EntityManager): Promise<ReserveCatalog> {
    const [row] = await preparedQuery<{
      gpu_types: GpuTypeRow[];
      cpu_prices: [string, string][];
      disk: string | null;
    }>(
      manager,
      'catalog.reserve-catalog',
      `SELECT (SELECT coalesce(json_agg(row_to_json(g)), '[]') FROM ${table('gpu_types')} g
                  WHERE g.id = ANY($1::text[])) AS gpu_types,
                (SELECT coalesce(json_agg(json_build_array(id, price_per_hr::text)), '[]')
                   FROM ${table('cpu_types')}) AS cpu_prices,
                (SELECT per_gb_hr FROM ${table('storage_prices')} WHERE kind = 'containerDisk') AS disk`,
      [gpuTypeIds],
    );
    return {
      gpuTypes: row.gpu_types.map(gpuTypeOf),
      gpuPrices: new Map(row.gpu_types.map((g) => [g.id, String(g.price_per_hr)])),
      cpuPrices: new Map(row.cpu_prices),
      diskPrice: row.disk,
    };
  }

  /**
   * What a placement costs per hour (one statement): the GPU type's price × GPUs, or a CPU pod's type (the one
   * asked for, else its host's), and the container disk price per GB-hour.
   */
  async rates(
    placed: { gpuTypeId: string | null; gpuCount: number; cpuTypeId: string | null; hostId: string },
    manager: EntityManager,
  ): Promise<UsageRates> {
    const [row]: { gpu: string | null; cpu: string | null; disk: string | null }[] = await manager.query(
      `SELECT (SELECT price_per_hr FROM ${table('gpu_types')} WHERE id = $1::text) AS gpu,
              (SELECT c.price_per_hr FROM ${table('cpu_types')} c
                WHERE c.id = coalesce($2::text, (SELECT cpu_type_id FROM ${table('hosts')} WHERE id = $3::text))) AS cpu,
              (SELECT per_gb_hr FROM ${table('storage_prices')} WHERE kind = 'containerDisk') AS disk`,
      [placed.gpuTypeId, placed.cpuTypeId, placed.hostId],
    );
    return placementRates(placed.gpuTypeId, placed.gpuCount, row);
  }

  findCpuType(id: string, manager: EntityManager = this.dataSource.manager): Promise<CpuTypeEntity | null> {
    return manager.findOneBy(CpuTypeEntity, { id });
  }

  cpuTypes(manager: EntityManager = this.dataSource.manager): Promise<CpuTypeEntity[]> {
    return manager.find(CpuTypeEntity, { order: { id: 'ASC' } });
  }

  dataCenters(manager: EntityManager = this.dataSource.manager): Promise<DataCenterEntity[]> {
    return manager.find(DataCenterEntity, { order: { id: 'ASC' } });
  }

  findDataCenter(
    id: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<DataCenterEntity | null> {
    return manager.findOneBy(DataCenterEntity, { id });
  }

  /** A host (null: not of the fleet): its scheduling state and health say whether it takes pods now, and why not. */
  findHost(id: string, manager: EntityManager = this.dataSource.manager): Promise<HostEntity | null> {
    return manager.findOneBy(HostEntity, { id });
  }

  async gpuCapacity(): Promise<GpuCapacityRow[]> {
    const rows: Record<string, string>[] = await this.dataSource.query(
      `SELECT gpu_type_id, data_center_id, count(*) AS hosts, sum(gpu_count) AS total, sum(free_gpus) AS free,
              max(free_gpus) AS max_free
         FROM ${table('hosts')} WHERE ${schedulableSql()} AND gpu_type_id IS NOT NULL
        GROUP BY gpu_type_id, data_center_id ORDER BY gpu_type_id, data_center_id`,
    );
    return rows.map((r) => ({
      gpuTypeId: r.gpu_type_id,
      dataCenterId: r.data_center_id,
      hosts: Number(r.hosts),
      totalGpus: Number(r.total),
      freeGpus: Number(r.free),
      maxFreeOnOneHost: Number(r.max_free),
    }));
  }

  async cpuCapacity(): Promise<CpuCapacityRow[]> {
    const rows: Record<string, string>[] = await this.dataSource.query(
      `SELECT cpu_type_id, data_center_id, sum(cpu_slots) AS total, sum(free_cpu_slots) AS free
         FROM ${table('hosts')} WHERE ${schedulableSql()} AND cpu_type_id IS NOT NULL AND cpu_slots > 0
        GROUP BY cpu_type_id, data_center_id ORDER BY cpu_type_id, data_center_id`,
    );
    return rows.map((r) => ({
      cpuTypeId: r.cpu_type_id,
      dataCenterId: r.data_center_id,
      totalSlots: Number(r.total),
      freeSlots: Number(r.free),
    }));
  }

  /** Whether a fleet file with this content hash was loaded before (then loading it again would change nothing). */
  async fleetLoaded(sha256: string): Promise<boolean> {
    return this.dataSource.manager.existsBy(FleetLoadEntity, { sha256 });
  }

  /**
   * Loads a fleet file in one transaction, unless a file with the same content was loaded before. Catalog rows
   * are upserted. The file's hosts only seed an empty fleet (source `file`, READY): once the fleet has any host,
   * hosts change only through recorded `fleet.cmd.*` commands (docs/adr/0039-live-fleet.md), so a file edited later
   * changes the catalog and nothing of the hosts. Returns null when the same file had been loaded already, else how
   * many hosts it seeded.
   */
  async loadFleet(fleet: FleetFile, sha256: string, now: Date): Promise<{ seeded: number } | null> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock($1)', [FLEET_LOCK]);
      if (await manager.findOneBy(FleetLoadEntity, { sha256 })) return null;
      await manager.upsert(GpuTypeEntity, fleet.gpuTypes, ['id']);
      if (fleet.cpuTypes.length) await manager.upsert(CpuTypeEntity, fleet.cpuTypes, ['id']);
      await manager.upsert(DataCenterEntity, fleet.dataCenters, ['id']);
      const prices = fleet.prices ?? {};
      await manager.upsert(
        StoragePriceEntity,
        [
          { kind: 'containerDisk', perGbHr: prices.containerDiskPerGbHr ?? 0 },
          { kind: 'networkVolume', perGbHr: prices.networkVolumePerGbHr ?? 0 },
        ],
        ['kind'],
      );
      const hosts = fleet.hosts;
      // One set-based statement (10,000 hosts in one round trip); nothing when the fleet has a host already.
      const inserted: unknown[] = await manager.query(
        `INSERT INTO ${table('hosts')} (id, data_center_id, gpu_type_id, gpu_count, free_gpus, cpu_type_id, cpu_slots,
                                 free_cpu_slots, public_ip, port_start, port_end, free_ports, scheduling_state,
                                 scheduling_by, scheduling_since, source, registered_at)
         SELECT v.id, v.dc, v.gpu_type, v.gpus, v.gpus, v.cpu_type, v.slots, v.slots, v.ip, v.p0, v.p1,
                v.p1 - v.p0 + 1, 'READY', 'file', $10::timestamptz, 'file', $10::timestamptz
           FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::text[], $6::int[], $7::text[], $8::int[],
                       $9::int[]) AS v(id, dc, gpu_type, gpus, cpu_type, slots, ip, p0, p1)
          WHERE NOT EXISTS (SELECT 1 FROM ${table('hosts')})
         RETURNING 1`,
        [
          hosts.map((h) => h.id),
          hosts.map((h) => h.dataCenterId),
          hosts.map((h) => h.gpuTypeId),
          hosts.map((h) => h.gpuCount),
          hosts.map((h) => h.cpuTypeId),
          hosts.map((h) => h.cpuSlots),
          hosts.map((h) => h.publicIp),
          hosts.map((h) => h.portRange[0]),
          hosts.map((h) => h.portRange[1]),
          now,
        ],
      );
      await manager.insert(FleetLoadEntity, { sha256, hosts: hosts.length, loadedAt: now });
      return { seeded: inserted.length };
    });
  }
}
