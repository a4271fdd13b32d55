import type { PlacementRequest } from './placement.js';
import { schedulableSql } from '../catalog/host.entity.js';
import { table } from '../schema.js';

const COLUMNS =
  'id, data_center_id, gpu_type_id, gpu_count, free_gpus, cpu_type_id, cpu_slots, free_cpu_slots, free_ports';

const DATA_CENTERS = `SELECT coalesce(json_agg(json_build_object('id', id, 'region', region) ORDER BY id), '[]')
                        FROM ${table('data_centers')}`;

/**
 * The hosts that may take one of the request's pods: `columns` of them, and the statement's parameters so far.
 * `perDataCenter` (GPU pods): only the first that many of each data center in packing order, read from
 * hosts_packing_idx (schedulable hosts with a GPU free, in packing order per type and data center) rather than
 * sorting every candidate; each takes at least one pod, so the hosts a placement of that many pods reaches are among
 * them. Null: every candidate.
 */
function candidates(
  request: PlacementRequest,
  full: boolean,
  columns: string,
  perDataCenter: number | null,
): { hosts: string; params: unknown[] } {
  // Only schedulable hosts (READY and healthy): nothing is placed on, or preempted for, a host that takes no pods.
  const where = [schedulableSql(), full ? '$1::int >= 0' : 'free_ports >= $1'];
  const params: unknown[] = [request.portsPerPod];
  const gpu = request.gpuTypeId !== null;
  if (gpu) {
    params.push(request.gpuTypeId, full ? 0 : Math.max(1, request.gpusPerPod));
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
  if (!gpu || perDataCenter === null) {
    return { hosts: `SELECT ${columns} FROM ${table('hosts')} WHERE ${where.join(' AND ')}`, params };
  }
  // The index's own condition (free_gpus > 0) and order, written as it is, so the planner reads it in order.
  params.push(perDataCenter);
  return {
    hosts: `SELECT c.* FROM ${table('data_centers')} dc CROSS JOIN LATERAL (
              SELECT ${columns} FROM ${table('hosts')}
               WHERE ${where.join(' AND ')} AND free_gpus > 0 AND data_center_id = dc.id
               ORDER BY free_gpus < gpu_count DESC, free_gpus, id COLLATE "C"
               LIMIT $${params.length}::int) c`,
    params,
  };
}

/**
 * The candidates with `before`: podsFitting (placement.ts) in SQL, how many pods each host takes, summed over the
 * hosts before it in its data center's packing order. A host is needed while that is short of `pods`, whose
 * parameter is the last one pushed.
 */
function packed(
  request: PlacementRequest,
  hosts: string,
  params: unknown[],
  columns: string,
  pods: number,
): string {
  const gpu = request.gpuTypeId !== null;
  if (gpu) params.push(Math.max(1, request.gpusPerPod));
  const compute = gpu ? `free_gpus / $${params.length}::int` : 'free_cpu_slots';
  params.push(request.portsPerPod, pods);
  const ports = params.length - 1;
  const fits = `CASE WHEN $${ports}::int > 0 THEN least(${compute}, free_ports / greatest($${ports}::int, 1)) ELSE ${compute} END`;
  const [free, total] = gpu ? ['free_gpus', 'gpu_count'] : ['free_cpu_slots', 'cpu_slots'];
  return `SELECT ${columns}, coalesce(sum(${fits}) OVER (PARTITION BY data_center_id
                   ORDER BY ${free} < ${total} DESC, ${free}, id COLLATE "C"
                   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before
            FROM (${hosts}) candidate`;
}

/**
 * The snapshot's statement (PlacementRepository.snapshot): the data centers, and the hosts placement may use, both
 * as JSON in one row.
 *
 * Not every host that could take a pod: per data center, only the hosts that the packing order (packing.plugin.ts:
 * partly used first, then fewest free, then id) reaches before the request's pods all fit. `assign` fills hosts in
 * exactly that order and stops there, and the data center scorers only look at the hosts it used, so the plan is
 * the one the whole fleet would give; on 10,000 hosts a one-pod request reads one host per data center instead of
 * the ~900 of its type with a GPU free (whose JSON was most of a placement's time). A new host scorer must change
 * this order with it, and hosts_packing_idx (placement.int-spec.ts compares the plans with and without the bound).
 * For GPU pods the candidates come from that index, the first `podCount` of each data center, so Postgres no longer
 * sorts every host of the type (3–10 ms at 10,000 hosts) to find them.
 *
 * `full`: every host of the type, full ones too, unbounded (preemption plans with what it would free on them).
 */
export function snapshotStatement(
  request: PlacementRequest,
  full: boolean,
): { text: string; params: unknown[] } {
  const read = candidates(request, full, COLUMNS, full ? null : request.podCount);
  const { params } = read;
  let { hosts } = read;
  if (!full) {
    hosts = `SELECT ${COLUMNS} FROM (${packed(request, hosts, params, COLUMNS, request.podCount)}) packed
              WHERE before < $${params.length}::int`;
  }
  return {
    text: `SELECT (${DATA_CENTERS}) AS data_centers,
                  (SELECT coalesce(json_agg(json_build_array(${COLUMNS})), '[]') FROM (${hosts}) snapshot) AS hosts`,
    params,
  };
}

/** The columns of a read-ahead host: the snapshot's, then its address. */
export const AHEAD_COLUMNS = `${COLUMNS}, public_ip, port_start, port_end`;

/**
 * The snapshot a lane's batch reads ahead for `pods` pods of the request's shape (ReserveReads): per data center
 * the hosts the packing order reaches before `pods` of them fit, with their addresses and the ports they map, and
 * the data centers that have more candidates than that (`incomplete`: a plan that needs more of them there reads
 * again, reserve-batch.ts `surePlace`).
 */
export function readAheadStatement(
  request: PlacementRequest,
  pods: number,
): { text: string; params: unknown[] } {
  // One host more than `pods` per data center: where it is read, the data center has more than the pods need.
  const { hosts, params } = candidates(request, false, AHEAD_COLUMNS, pods + 1);
  const ordered = packed(request, hosts, params, AHEAD_COLUMNS, pods);
  const bound = `$${params.length}::int`;
  return {
    text: `WITH packed AS MATERIALIZED (${ordered}),
                ahead AS (SELECT ${AHEAD_COLUMNS} FROM packed WHERE before < ${bound})
           SELECT (${DATA_CENTERS}) AS data_centers,
                  (SELECT coalesce(json_agg(json_build_array(${AHEAD_COLUMNS})), '[]') FROM ahead) AS hosts,
                  (SELECT coalesce(json_agg(DISTINCT data_center_id), '[]') FROM packed WHERE before >= ${bound})
                    AS incomplete,
                  (SELECT coalesce(json_agg(json_build_array(host_id, port)), '[]') FROM ${table('host_ports')}
                    WHERE host_id = ANY(ARRAY(SELECT id FROM ahead))) AS ports`,
    params,
  };
}
