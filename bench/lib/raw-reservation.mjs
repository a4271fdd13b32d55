// The raw SQL reservation: the database part of a placement done by hand on a plain pg connection, the baseline
// the placement figures are read against (bench/scenarios/placement.mjs, bench/scale/placement.mjs). One
// transaction: snapshot query, best fit in JS (partly used hosts first, fewest free GPUs, then id), lock the hosts in
// id order, the guarded UPDATE, read the hosts' mapped ports, INSERT the reservations and one port each, COMMIT.
// No ledger lock and no quota: what a hand-written reservation needs and nothing more.

const S = 'cluster_scheduler';

/** Thrown when a concurrent transaction took what the plan counted on (the caller may try again). */
export class RawLostRace extends Error {}

/**
 * Reserves `podIds.length` pods of one GPU each of `gpuTypeId` (in `dataCenterId`, or any data center when null:
 * then all in the one first fit finds), one public port ('22/tcp') each, owned by `ownerId`. Throws RawLostRace on a
 * lost race, an Error when the pods do not fit.
 */
export async function rawReservation(client, { gpuTypeId, dataCenterId = null, podIds, ownerId = 'bench' }) {
  await client.query('BEGIN');
  try {
    const hosts = (
      await client.query(
        `SELECT id, data_center_id, gpu_count, free_gpus, free_ports FROM ${S}.hosts
          WHERE scheduling_state = 'READY' AND healthy AND free_ports >= 1
            AND gpu_type_id = $1 AND free_gpus >= 1 AND ($2::text IS NULL OR data_center_id = $2)`,
        [gpuTypeId, dataCenterId],
      )
    ).rows.sort(
      (a, b) =>
        Number(b.free_gpus < b.gpu_count) - Number(a.free_gpus < a.gpu_count) ||
        a.free_gpus - b.free_gpus ||
        (a.id < b.id ? -1 : 1),
    );
    const byDc = new Map();
    for (const h of hosts) byDc.set(h.data_center_id, [...(byDc.get(h.data_center_id) ?? []), h]);
    let take = null;
    let dc = null;
    for (const [candidate, list] of [...byDc].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      const plan = new Map();
      let left = podIds.length;
      for (const h of list) {
        const n = Math.min(h.free_gpus, h.free_ports, left);
        if (n > 0) plan.set(h.id, n);
        left -= n;
        if (!left) break;
      }
      if (!left) {
        take = plan;
        dc = candidate;
        break;
      }
    }
    if (!take) throw new Error(`raw SQL: ${podIds.length} pods of ${gpuTypeId} did not fit`);
    const ids = [...take.keys()].sort();
    await client.query(`SELECT id FROM ${S}.hosts WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE`, [ids]);
    const updated = await client.query(
      `UPDATE ${S}.hosts h SET free_gpus = h.free_gpus - v.n, free_ports = h.free_ports - v.n
         FROM unnest($1::text[], $2::int[]) AS v(id, n)
        WHERE h.id = v.id AND h.free_gpus >= v.n AND h.free_ports >= v.n
        RETURNING h.id, h.port_start`,
      [ids, ids.map((id) => take.get(id))],
    );
    if (updated.rowCount !== ids.length) throw new RawLostRace('raw SQL: the guarded UPDATE lost a race');
    const used = await client.query(
      `SELECT host_id, port FROM ${S}.host_ports WHERE host_id = ANY($1::text[])`,
      [ids],
    );
    const taken = new Map(ids.map((id) => [id, new Set()]));
    for (const row of used.rows) taken.get(row.host_id).add(row.port);
    const rows = [];
    for (const { id, port_start } of updated.rows) {
      let port = port_start;
      for (let i = 0; i < take.get(id); i++) {
        while (taken.get(id).has(port)) port++;
        taken.get(id).add(port);
        rows.push({ podId: podIds[rows.length], hostId: id, port });
      }
    }
    await client.query(
      `INSERT INTO ${S}.reservations (pod_id, owner_id, cluster_id, host_id, data_center_id, gpu_type_id, gpu_count,
                                      cpu_slots, network_volume_id, port_mappings, created_at)
       SELECT p, $6, NULL, h, $3, $4, 1, 0, NULL, jsonb_build_object('22/tcp', port), now()
         FROM unnest($1::text[], $2::text[], $5::int[]) AS v(p, h, port)`,
      [rows.map((r) => r.podId), rows.map((r) => r.hostId), dc, gpuTypeId, rows.map((r) => r.port), ownerId],
    );
    await client.query(
      `INSERT INTO ${S}.host_ports (host_id, port, pod_id) SELECT * FROM unnest($1::text[], $2::int[], $3::text[])`,
      [rows.map((r) => r.hostId), rows.map((r) => r.port), rows.map((r) => r.podId)],
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
}

/** Undoes the raw reservations whose pod ids start with `prefix`: GPUs and ports back, rows gone (ports cascade). */
export async function undoRawReservations(client, prefix) {
  await client.query('BEGIN');
  await client.query(
    `UPDATE ${S}.hosts h SET free_gpus = h.free_gpus + v.n, free_ports = h.free_ports + v.n
       FROM (SELECT host_id, count(*)::int AS n FROM ${S}.reservations WHERE starts_with(pod_id, $1) GROUP BY host_id) v
      WHERE h.id = v.host_id`,
    [prefix],
  );
  await client.query(`DELETE FROM ${S}.reservations WHERE starts_with(pod_id, $1)`, [prefix]);
  await client.query('COMMIT');
}
