import type { PlacementRequest } from './placement.js';
import { schedulableSql } from '../catalog/host.entity.js';
import { table } from '../schema.js';

/**
 * The snapshot's statement (PlacementRepository.snapshot): the data centers, and the hosts placement may use, both
 * as JSON in one row.
 *
 * Not every host that could take a pod: per data center, only the hosts that the packing order (packing.plugin.ts:
 * partly used first, then fewest free, then id) reaches before the request's pods all fit. `assign` fills hosts in
 * exactly that order and stops there, and the data center scorers only look at the hosts it used, so the plan is
 * the one the whole fleet would give; on 10,000 hosts a one-pod request reads one host per data center instead of
 * the ~900 of its type with a GPU free (whose JSON was most of a placement's time). A new host scorer must change
 * this order with it (placement.int-spec.ts compares the plans with and without the bound).
 *
 * `full`: every host of the type, full ones too, unbounded (preemption plans with what it would free on them).
 */
export function snapshotStatement(
  request: PlacementRequest,
  full: boolean,
): { text: string; params: unknown[] } {
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
  const columns =
    'id, data_center_id, gpu_type_id, gpu_count, free_gpus, cpu_type_id, cpu_slots, free_cpu_slots, free_ports';
  let hosts = `SELECT ${columns} FROM ${table('hosts')} WHERE ${where.join(' AND ')}`;
  if (!full) {
    // podsFitting (placement.ts) in SQL: how many pods each host takes; then, per data center in packing order,
    // what the hosts before it take; a host is read while that is short of the request.
    if (gpu) params.push(Math.max(1, request.gpusPerPod));
    const compute = gpu ? `free_gpus / $${params.length}::int` : 'free_cpu_slots';
    params.push(request.portsPerPod, request.podCount);
    const [ports, pods] = [params.length - 1, params.length];
    const fits = `CASE WHEN $${ports}::int > 0 THEN least(${compute}, free_ports / greatest($${ports}::int, 1)) ELSE ${compute} END`;
    const [free, total] = gpu ? ['free_gpus', 'gpu_count'] : ['free_cpu_slots', 'cpu_slots'];
    hosts = `SELECT ${columns} FROM (
               SELECT ${columns}, coalesce(sum(${fits}) OVER (PARTITION BY data_center_id
                        ORDER BY ${free} < ${total} DESC, ${free}, id COLLATE "C"
                        ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before
                 FROM (${hosts}) candidate) packed
              WHERE before < $${pods}::int`;
  }
  return {
    text: `SELECT (SELECT coalesce(json_agg(json_build_object('id', id, 'region', region) ORDER BY id), '[]')
                     FROM ${table('data_centers')}) AS data_centers,
                  (SELECT coalesce(json_agg(json_build_array(${columns})), '[]') FROM (${hosts}) snapshot) AS hosts`,
    params,
  };
}
