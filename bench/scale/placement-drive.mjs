// The placement measure's drives (bench/scale/placement.mjs says what each measures): one side of one figure each.
import { quiesce } from '../lib/quiesce.mjs';
import { pooled } from '../lib/command-issuer.mjs';
import { RawLostRace, rawReservation, undoRawReservations } from '../lib/raw-reservation.mjs';

const S = 'cluster_scheduler';
export const CONCURRENCY = 16;
export const CLUSTER_PODS = 64;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Pods per round: at most a third of what is free, so every round finds the same room. */
export const counts = (env, free) => {
  const cap = Math.floor(free / 3);
  return env.quick
    ? { reserves: Math.min(150, cap), creates: Math.min(30, cap), clusters: 1 }
    : { reserves: Math.min(1500, cap), creates: Math.min(200, cap), clusters: 3 };
};

export async function freeByType(sql) {
  const { rows } = await sql.query(
    `SELECT gpu_type_id AS type, sum(least(free_gpus, free_ports))::int AS free FROM ${S}.hosts
      WHERE scheduling_state = 'READY' AND healthy AND gpu_type_id IS NOT NULL GROUP BY 1 ORDER BY 1`,
  );
  return rows;
}

/** N GPU types in proportion to what is free of each, interleaved (deterministic). */
export function typeSequence(free, n) {
  const total = free.reduce((a, r) => a + r.free, 0);
  const seq = [];
  const credit = new Map(free.map((r) => [r.type, 0]));
  for (let i = 0; i < n; i++) {
    for (const r of free) credit.set(r.type, credit.get(r.type) + r.free / total);
    const [type] = [...credit].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
    credit.set(type, credit.get(type) - 1);
    seq.push(type);
  }
  return seq;
}

export async function bestGroup(sql) {
  const { rows } = await sql.query(
    `SELECT gpu_type_id, data_center_id, sum(least(free_gpus, free_ports))::int AS free FROM ${S}.hosts
      WHERE scheduling_state = 'READY' AND healthy AND gpu_type_id IS NOT NULL GROUP BY 1, 2 ORDER BY 3 DESC, 1, 2 LIMIT 1`,
  );
  return { gpuTypeId: rows[0].gpu_type_id, dataCenterId: rows[0].data_center_id, free: rows[0].free };
}

async function untilReleased(sql, where, params, what) {
  const deadline = performance.now() + 120_000;
  for (;;) {
    const { rows } = await sql.query(
      `SELECT count(*)::int AS n FROM ${S}.reservations WHERE ${where}`,
      params,
    );
    if (!rows[0].n) return;
    if (performance.now() > deadline) {
      throw new Error(`${rows[0].n} reservations of ${what} not released in 120 s`);
    }
    await sleep(100);
  }
}

const rate = (n, ms) => (n * 1000) / ms;

export async function busPlacements(state, round) {
  const { issuer } = state;
  const ids = [];
  const latencies = [];
  const started = performance.now();
  await pooled(state.n.reserves, CONCURRENCY, async (i) => {
    const owner = state.teams[i % state.teams.length].id;
    const podId = `scale-pl-${round}-${i}`;
    const payload = { podId, ownerId: owner, gpuTypeId: state.types[i], gpuCount: 1, ports: ['22/tcp'] };
    const out = await issuer.issue('placement.cmd.reserve', payload, { userId: owner, kind: 'user' });
    if (!out.ok) throw new Error(`placement.cmd.reserve: ${out.error.code} ${out.error.message}`);
    latencies.push(out.ms);
    ids.push({ podId, owner });
  });
  const ms = performance.now() - started;
  await pooled(ids.length, CONCURRENCY, async (i) => {
    const { podId, owner } = ids[i];
    const out = await issuer.issue('placement.cmd.release', { podId }, { userId: owner, kind: 'user' });
    if (!out.ok) throw new Error(`placement.cmd.release: ${out.error.code} ${out.error.message}`);
  });
  return { rate: rate(ids.length, ms), latencies };
}

export async function rawPlacements(state, round) {
  const latencies = [];
  let retries = 0;
  const clients = await Promise.all(Array.from({ length: CONCURRENCY }, () => state.pool.connect()));
  const free = [...clients];
  const started = performance.now();
  try {
    await pooled(state.n.reserves, CONCURRENCY, async (i) => {
      const client = free.pop();
      const t = performance.now();
      try {
        for (;;) {
          try {
            await rawReservation(client, {
              gpuTypeId: state.types[i],
              podIds: [`scale-sql-${round}-${i}`],
              ownerId: state.teams[i % state.teams.length].id,
            });
            break;
          } catch (error) {
            if (!(error instanceof RawLostRace)) throw error;
            retries++;
          }
        }
      } finally {
        free.push(client);
      }
      latencies.push(performance.now() - t);
    });
    const ms = performance.now() - started;
    await undoRawReservations(clients[0], 'scale-sql-');
    return { rate: rate(state.n.reserves, ms), latencies, retries };
  } finally {
    for (const c of clients) c.release();
  }
}

export async function apiCreates(state, round) {
  const { env } = state;
  const ids = [];
  const started = performance.now();
  await pooled(state.n.creates, CONCURRENCY, async (i) => {
    const body = {
      name: `scale-pl-${round}-${i}`,
      image: 'runpod/base:0.6.2',
      gpu: { id: state.types[i], count: 1 },
      disk: 10,
    };
    const pod = await env.api.post('/v2/pods', body, { expect: [201] });
    ids.push(pod.id);
  });
  const ms = performance.now() - started;
  await pooled(ids.length, CONCURRENCY, (i) => env.api.delete(`/v2/pods/${ids[i]}`));
  await untilReleased(env.sql, 'pod_id = ANY($1::text[])', [ids], 'the terminated pods');
  return rate(ids.length, ms);
}

export async function clusterCreates(state, round) {
  const { env } = state;
  const samples = [];
  state.groups = [];
  for (let k = 0; k < state.n.clusters; k++) {
    const group = await bestGroup(env.sql);
    state.groups.push(group);
    const body = {
      name: `scale-c64-${round}-${k}`,
      type: 'TRAINING',
      compute: { gpuTypeId: group.gpuTypeId, gpuCountPerPod: 1, podCount: CLUSTER_PODS },
      dataCenterIds: [group.dataCenterId],
      ports: ['22/tcp'],
    };
    const t = performance.now();
    const cluster = await env.api.post('/v2/clusters', body, { expect: [201] });
    samples.push(performance.now() - t);
    await env.api.delete(`/v2/clusters/${cluster.id}`);
    await untilReleased(env.sql, 'cluster_id = $1', [cluster.id], `cluster ${cluster.id}`);
    await quiesce(env.system, { timeoutMs: 20_000 });
  }
  return samples;
}

export async function rawClusters(state, round) {
  const client = await state.pool.connect();
  try {
    const samples = [];
    for (const [k, group] of state.groups.entries()) {
      const t = performance.now();
      await rawReservation(client, {
        gpuTypeId: group.gpuTypeId,
        dataCenterId: group.dataCenterId,
        podIds: Array.from({ length: CLUSTER_PODS }, (_, n) => `scale-c64sql-${round}-${k}-${n}`),
      });
      samples.push(performance.now() - t);
      await undoRawReservations(client, 'scale-c64sql-');
    }
    return samples;
  } finally {
    client.release();
  }
}
