import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { CapacityRow, FleetCapacityView, HostPodView, HostSource, HostState } from '@app/contracts';
import { table } from '../schema.js';
import type { HostRow } from './host.mapper.js';

/** The shown state in SQL, as shownState() says it in code: GONE, UNHEALTHY, then the scheduling state. */
const SHOWN_STATE = `CASE WHEN h.scheduling_state = 'GONE' THEN 'GONE' WHEN NOT h.healthy THEN 'UNHEALTHY'
                          ELSE h.scheduling_state END`;

/** A host's columns as HostRow names them, and how many pods hold capacity on it (an index lookup per host). */
const HOST_COLUMNS = `h.id, h.data_center_id AS "dataCenterId", h.gpu_type_id AS "gpuTypeId", h.gpu_count AS "gpuCount",
  h.free_gpus AS "freeGpus", h.cpu_type_id AS "cpuTypeId", h.cpu_slots AS "cpuSlots",
  h.free_cpu_slots AS "freeCpuSlots", h.public_ip AS "publicIp", h.port_start AS "portStart",
  h.port_end AS "portEnd", h.source, h.scheduling_state AS "schedulingState", h.scheduling_by AS "schedulingBy",
  h.scheduling_reason AS "schedulingReason", h.scheduling_since AS "schedulingSince", h.healthy,
  h.health_code AS "healthCode", h.health_reason AS "healthReason", h.health_source AS "healthSource",
  h.health_gpu_index AS "healthGpuIndex", h.health_since AS "healthSince", h.drain_deadline AS "drainDeadline",
  (SELECT count(*)::int FROM ${table('reservations')} r WHERE r.host_id = h.id) AS pods`;

export interface HostFilters {
  dataCenterId?: string;
  gpuTypeId?: string;
  state?: HostState;
  source?: HostSource;
  /** The last id of the page before. */
  after?: string;
  limit: number;
}

/** The fleet's reads for operators: hosts by page, one host with its pods, the capacity summary. */
@Injectable()
export class FleetViewsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** One page of hosts by id (keyset: `after`), the filters applied; `limit` + 1 rows say whether more follow. */
  list(filters: HostFilters): Promise<HostRow[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (condition: (p: string) => string, value: unknown) => {
      params.push(value);
      where.push(condition(`$${params.length}`));
    };
    if (filters.dataCenterId) add((p) => `h.data_center_id = ${p}`, filters.dataCenterId);
    if (filters.gpuTypeId) add((p) => `h.gpu_type_id = ${p}`, filters.gpuTypeId);
    if (filters.state) add((p) => `${SHOWN_STATE} = ${p}`, filters.state);
    if (filters.source) add((p) => `h.source = ${p}`, filters.source);
    if (filters.after) add((p) => `h.id > ${p}`, filters.after);
    params.push(filters.limit + 1);
    return this.dataSource.query(
      `SELECT ${HOST_COLUMNS} FROM ${table('hosts')} h
        ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY h.id LIMIT $${params.length}`,
      params,
    );
  }

  /** The host and the pods holding capacity on it (oldest first), in one statement; null: no such host. */
  async get(hostId: string): Promise<{ host: HostRow; pods: HostPodView[] } | null> {
    const [row]: { host: HostRow; pods: HostPodView[] }[] = await this.dataSource.query(
      `SELECT row_to_json(x) AS host,
              (SELECT coalesce(json_agg(json_build_object('podId', r.pod_id, 'ownerId', r.owner_id,
                                                          'clusterId', r.cluster_id, 'gpuCount', r.gpu_count,
                                                          'priority', r.priority, 'since', r.created_at)
                                        ORDER BY r.created_at, r.pod_id), '[]')
                 FROM ${table('reservations')} r WHERE r.host_id = $1) AS pods
         FROM (SELECT ${HOST_COLUMNS} FROM ${table('hosts')} h WHERE h.id = $1) x`,
      [hostId],
    );
    if (!row) return null;
    return { host: revive(row.host), pods: row.pods.map((p) => ({ ...p, since: toIso(p.since) })) };
  }

  /** Hosts per shown state (those with none left out): the `fleet_hosts` gauge, one pass over the hosts. */
  async hostStates(): Promise<Record<string, number>> {
    const rows: { state: string; n: number }[] = await this.dataSource.query(
      `SELECT ${SHOWN_STATE} AS state, count(*)::int AS n FROM ${table('hosts')} h GROUP BY 1`,
    );
    return Object.fromEntries(rows.map((row) => [row.state, row.n]));
  }

  /**
   * Per data center and GPU type (and per CPU type, in slots) over the hosts not GONE, and hosts per shown state:
   * ONE statement and ONE pass over the hosts, grouped by data center, types and shown state (a few hundred rows
   * at most), which each part then sums: three passes cost 1.5 to 2.5 times as much at 10,000 hosts (issue 56).
   * total = allocated + free + unavailable: free is what READY hosts could still place, unavailable the free
   * capacity of the others.
   */
  async capacity(): Promise<FleetCapacityView> {
    const part = (compute: 'gpu' | 'cpu') => {
      const [type, hosts, total, free] =
        compute === 'gpu'
          ? ['gpu', 'hosts', 'gpus', 'free_gpus']
          : ['cpu', 'cpu_hosts', 'slots', 'free_slots'];
      return `SELECT coalesce(json_agg(json_build_object('dataCenterId', s.dc,
                'gpuTypeId', ${compute === 'gpu' ? 's.type' : 'NULL'}, 'cpuTypeId', ${compute === 'cpu' ? 's.type' : 'NULL'},
                'hosts', s.hosts, 'total', s.total, 'allocated', s.total - s.free_all, 'free', s.free,
                'unavailable', s.free_all - s.free) ORDER BY s.dc, s.type), '[]')
                FROM (SELECT dc, ${type} AS type, sum(${hosts})::int AS hosts, sum(${total})::int AS total,
                             sum(${free})::int AS free_all,
                             (coalesce(sum(${free}) FILTER (WHERE state = 'READY'), 0))::int AS free
                        FROM g WHERE state <> 'GONE' ${compute === 'gpu' ? 'AND gpu IS NOT NULL' : ''}
                       GROUP BY dc, ${type} HAVING sum(${hosts}) > 0) s`;
    };
    const [row]: { gpus: CapacityRow[]; cpus: CapacityRow[]; states: Record<string, number> }[] =
      await this.dataSource.query(
        // READY as shown is READY and healthy: the state a host's free capacity can be placed in.
        `WITH g AS MATERIALIZED (
           SELECT h.data_center_id AS dc, h.gpu_type_id AS gpu, h.cpu_type_id AS cpu, ${SHOWN_STATE} AS state,
                  count(*) AS hosts, sum(h.gpu_count) AS gpus, sum(h.free_gpus) AS free_gpus,
                  count(*) FILTER (WHERE h.cpu_slots > 0) AS cpu_hosts, sum(h.cpu_slots) AS slots,
                  sum(h.free_cpu_slots) AS free_slots
             FROM ${table('hosts')} h GROUP BY 1, 2, 3, 4)
         SELECT (${part('gpu')}) AS gpus, (${part('cpu')}) AS cpus,
                (SELECT coalesce(json_object_agg(s.state, s.n), '{}')
                   FROM (SELECT state, sum(hosts)::int AS n FROM g GROUP BY state) s) AS states`,
      );
    const hosts = { READY: 0, CORDONED: 0, DRAINING: 0, UNHEALTHY: 0, GONE: 0, ...row.states };
    return { gpus: row.gpus, cpus: row.cpus, hosts };
  }
}

function toIso(value: string | Date): string {
  return new Date(value).toISOString();
}

/** row_to_json gives times as strings: back to Dates, as the list's rows have them. */
function revive(host: HostRow): HostRow {
  const date = (v: Date | string | null) => (v === null ? null : new Date(v));
  return {
    ...host,
    schedulingSince: date(host.schedulingSince)!,
    healthSince: date(host.healthSince),
    drainDeadline: date(host.drainDeadline),
  };
}
