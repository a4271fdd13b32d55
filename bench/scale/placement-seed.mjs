// The placement measure's fleet: 70 % of its GPUs held by the reservations of 50 teams in 5 cohorts, each team with
// a quota of every GPU type in its cohort (the bench user's team ten shares of the type, the 49 others one each). Written by SQL in one transaction, as the rows
// the scheduler's own placements write: a reservation per pod (1, 2, 4 or 8 GPUs, one public port '22/tcp'), its
// host_ports row, and the host's free GPUs and ports decremented by what its pods hold, so the CHECKs and the
// ledger's invariants hold (every host's used GPUs equal to its reservations, no team above its share plus what its
// cohort lends). Nothing reads these pods anywhere else: pod-lifecycle keeps no view of the scheduler's
// reservations and the scheduler sweeps none, so no pod rows are needed; the quota sampler counts them like any.
// Hosts fill as the scheduler's packing fills them (whole hosts first, some partly), and the types unevenly, as a
// live fleet's do: the largest type 45 % full, the others more, 70 % in all; so a 64-pod cluster finds one data
// center with room from 1,000 hosts up.

import { prng } from '../../scripts/lib/prng.mjs';

const S = 'cluster_scheduler';
export const FILL = 0.7;
const LARGEST_TYPE_FILL = 0.45;
export const TEAMS = 50;
export const COHORTS = 5;
const BENCH_TEAM_WEIGHT = 10;
/** GPUs of room per team and type for a round's reserves (at most 1,500 a round over 50 teams). */
const ROUND_ROOM = 32;
/** Quota shares in all: the bench team's and one per other team. */
const SHARES = TEAMS - 1 + BENCH_TEAM_WEIGHT;

/**
 * The 50 teams: the bench user's account first, the largest (a quota of BENCH_TEAM_WEIGHT shares: the API's
 * creates are all its own), then 49 more of one share; cohort by index.
 */
export function teams(benchAccountId) {
  return Array.from({ length: TEAMS }, (_, i) => ({
    id: i === 0 ? benchAccountId : `scale-team-${String(i).padStart(2, '0')}`,
    cohort: `scale-cohort-${i % COHORTS}`,
    weight: i === 0 ? BENCH_TEAM_WEIGHT : 1,
  }));
}

/** What fraction of each type to fill so the whole fleet is FILL full with the largest type at LARGEST_TYPE_FILL. */
function fillByType(totals) {
  const all = [...totals.values()].reduce((a, b) => a + b, 0);
  const [largest, largestGpus] = [...totals].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
  const others = (FILL * all - LARGEST_TYPE_FILL * largestGpus) / (all - largestGpus);
  return new Map([...totals.keys()].map((t) => [t, t === largest ? LARGEST_TYPE_FILL : others]));
}

/** Seeds the reservations and quotas; answers what it wrote. */
export async function seedPlacement(env) {
  const { rows: hosts } = await env.sql.query(
    `SELECT id, data_center_id, gpu_type_id, gpu_count, free_gpus, free_ports, port_start FROM ${S}.hosts
      WHERE gpu_type_id IS NOT NULL AND scheduling_state = 'READY' AND healthy ORDER BY id`,
  );
  const rand = prng(56);
  const totals = new Map();
  for (const h of hosts) totals.set(h.gpu_type_id, (totals.get(h.gpu_type_id) ?? 0) + h.gpu_count);
  const fill = fillByType(totals);
  const team = teams(env.user.userId);
  // What the teams hold already (the autoscaler measure's crowd of workers is the bench user's, 1,000 at L) goes into
  // their limits too: left out, the bench team's cohort would start above its members' sum, and quota.cmd.set
  // refuses every later quota change while one is (admission.mjs's).
  const { rows: heldRows } = await env.sql.query(
    `SELECT owner_id, gpu_type_id, sum(gpu_count)::int AS gpus FROM ${S}.reservations
      WHERE owner_id = ANY($1::text[]) GROUP BY owner_id, gpu_type_id`,
    [team.map((t) => t.id)],
  );
  const heldBefore = new Map(heldRows.map((r) => [`${r.owner_id}\u0000${r.gpu_type_id}`, r.gpus]));
  // Per type, each team's use so far: a pod goes to the team holding least of the type, so each holds about the
  // type's fill of its share.
  const use = new Map([...totals.keys()].map((t) => [t, new Array(TEAMS).fill(0)]));
  const pods = [];
  const byType = new Map();
  for (const h of hosts) byType.set(h.gpu_type_id, [...(byType.get(h.gpu_type_id) ?? []), h]);
  const taken = new Map();
  for (const [type, list] of byType) {
    const order = list.map((h) => ({ h, r: rand() })).sort((a, b) => a.r - b.r);
    let left = Math.round(fill.get(type) * totals.get(type));
    for (const pass of [0, 1]) {
      for (const { h } of order) {
        if (!left) break;
        const free = h.free_gpus - (taken.get(h.id) ?? 0);
        const r = rand();
        // First pass: 60 % of hosts taken whole, 25 % partly, the rest left free; the second tops up.
        const want = pass ? free : r < 0.6 ? free : r < 0.85 ? Math.floor(rand() * free) : 0;
        const n = Math.min(want, left, h.free_ports - (taken.get(h.id) ?? 0));
        if (n <= 0) continue;
        taken.set(h.id, (taken.get(h.id) ?? 0) + n);
        left -= n;
        for (let rest = n; rest > 0;) {
          // No pod larger than a team's share of the type, so no team and no cohort goes far past its shares.
          const sizes = [8, 4, 2, 1].filter((s) => s <= rest && s <= Math.ceil(totals.get(type) / SHARES));
          const size = sizes[Math.floor(rand() * Math.min(2, sizes.length))];
          const counts = use.get(type);
          const owner = counts.indexOf(Math.min(...counts));
          counts[owner] += size;
          pods.push({ host: h, type, size, owner: team[owner].id });
          rest -= size;
        }
      }
    }
  }
  const portsUsed = new Map();
  const rowsOf = pods.map((p, n) => {
    const k = portsUsed.get(p.host.id) ?? 0;
    portsUsed.set(p.host.id, k + 1);
    return { ...p, podId: `scale-seed-${n}`, port: p.host.port_start + k };
  });
  const client = await env.sql.connect();
  try {
    await client.query('BEGIN');
    const { rows: held } = await client.query(`SELECT count(*)::int AS n FROM ${S}.host_ports`);
    if (held[0].n) throw new Error('placement seed: the fleet must start empty (host_ports has rows)');
    await client.query(
      `INSERT INTO ${S}.reservations (pod_id, owner_id, cluster_id, host_id, data_center_id, gpu_type_id, gpu_count,
                                      cpu_slots, network_volume_id, port_mappings, created_at, priority, interruptible)
       SELECT p, o, NULL, h, dc, t, n, 0, NULL, jsonb_build_object('22/tcp', port),
              now() - make_interval(mins => (ord % 10000)::int), 1, false
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::int[])
              WITH ORDINALITY AS v(p, o, h, dc, t, n, port, ord)`,
      [
        rowsOf.map((r) => r.podId),
        rowsOf.map((r) => r.owner),
        rowsOf.map((r) => r.host.id),
        rowsOf.map((r) => r.host.data_center_id),
        rowsOf.map((r) => r.type),
        rowsOf.map((r) => r.size),
        rowsOf.map((r) => r.port),
      ],
    );
    await client.query(
      `INSERT INTO ${S}.host_ports (host_id, port, pod_id) SELECT * FROM unnest($1::text[], $2::int[], $3::text[])`,
      [rowsOf.map((r) => r.host.id), rowsOf.map((r) => r.port), rowsOf.map((r) => r.podId)],
    );
    const ids = [...taken.keys()];
    await client.query(
      `UPDATE ${S}.hosts h SET free_gpus = h.free_gpus - v.g, free_ports = h.free_ports - v.p
         FROM unnest($1::text[], $2::int[], $3::int[]) AS v(id, g, p) WHERE h.id = v.id`,
      [ids, ids.map((id) => taken.get(id)), ids.map((id) => portsUsed.get(id))],
    );
    // A team's limit: its share, or what the seed gave it if more (pods come whole, and the types other than the
    // largest are filled past 70 %), so no cohort starts above its members' sum (quota.cmd.set checks it); plus what it
    // held before the seed; plus room for one round of the measure's reserves, which are admitted, not refused:
    // admission.mjs measures refusals.
    const limits = team.map((t, i) =>
      JSON.stringify(
        [...totals].map(([gpuTypeId, gpus]) => ({
          gpuTypeId,
          dataCenterId: null,
          gpus:
            Math.max(Math.ceil((gpus * t.weight) / SHARES), use.get(gpuTypeId)[i]) +
            (heldBefore.get(`${t.id}\u0000${gpuTypeId}`) ?? 0) +
            ROUND_ROOM,
          borrowingLimit: null,
        })),
      ),
    );
    await client.query(
      `INSERT INTO ${S}.quotas (account_id, account_name, cohort, limits, updated_at)
       SELECT a, a, c, l::jsonb, now() FROM unnest($1::text[], $2::text[], $3::text[]) AS v(a, c, l)
       ON CONFLICT (account_id) DO UPDATE SET cohort = excluded.cohort, limits = excluded.limits`,
      [team.map((t) => t.id), team.map((t) => t.cohort), limits],
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
  await env.sql.query(`ANALYZE ${S}.hosts, ${S}.reservations, ${S}.host_ports, ${S}.quotas`);
  const gpus = [...totals.values()].reduce((a, b) => a + b, 0);
  const used = rowsOf.reduce((a, r) => a + r.size, 0);
  return { reservations: rowsOf.length, gpus, used, share: used / gpus };
}
