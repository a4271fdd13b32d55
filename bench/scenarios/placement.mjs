// Cluster placement over the generated 10,000-host fleet (scripts/generate-fleet.mjs, cluster-scheduler's
// FLEET_FILE).
//   create → 201 of a 250-pod cluster (1 GPU per pod, one exposed port each, pinned to the GPU type and data
//   center with the most free GPUs at that moment):
//     ours      POST /v2/clusters until its 201: gateway, validation, the command through JetStream, snapshot +
//               placement + guarded commit + VXLAN id/CIDR + member rows + outbox in cluster-scheduler;
//     baseline  the database part of the same reservation by hand, in one transaction on a plain pg connection:
//               snapshot query, first-fit in JS, lock the hosts, guarded UPDATE, INSERT the 250 reservations and
//               their ports, COMMIT (then undone, untimed).
//   20 creates of 4-pod clusters:
//     ours      all 20 POST /v2/clusters at once, until the last 201;
//     baseline  the same 20 one after another.
// Created clusters stay (the fleet fills up as the rounds go, alike for both sides): their pods are simulated by
// pod-lifecycle and stay PROVISIONING (SIM_PROVISION_MS is one hour in the harness), so they cost nothing once
// created; after each create the harness waits until pod-lifecycle has all the member pods and the apps have gone
// quiet (each member's first status event followed by cluster-scheduler, pod-lifecycle's runtime reconciling it,
// the relays drained: bench/lib/quiesce.mjs), so the next measurement does not overlap that work, as the raw SQL
// side overlaps none. Everything goes with the run's database.
import { quiesce } from '../lib/quiesce.mjs';
import { rawReservation, undoRawReservations } from '../lib/raw-reservation.mjs';
import { quickRounds } from '../lib/rounds.mjs';
import { percentile } from '../lib/stats.mjs';

const PODS = 250;
const SMALL_PODS = 4;
const CONCURRENT = 20;
const S = 'cluster_scheduler';
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The GPU type and data center with the most free GPUs now. */
async function bestGroup(sql, needed) {
  const { rows } = await sql.query(
    `SELECT gpu_type_id, data_center_id, sum(free_gpus)::int AS free FROM ${S}.hosts
      WHERE scheduling_state = 'READY' AND healthy AND gpu_type_id IS NOT NULL AND free_ports >= 1 GROUP BY 1, 2 ORDER BY 3 DESC, 1, 2 LIMIT 1`,
  );
  if (!rows[0] || rows[0].free < needed) {
    throw new Error(`the fleet has no ${needed} free GPUs of one type in one place`);
  }
  return { gpuTypeId: rows[0].gpu_type_id, dataCenterId: rows[0].data_center_id };
}

function clusterBody(group, pods, n) {
  return {
    name: `bench-${n}`,
    type: 'TRAINING',
    compute: { gpuTypeId: group.gpuTypeId, gpuCountPerPod: 1, podCount: pods },
    dataCenterIds: [group.dataCenterId],
    ports: ['22/tcp'],
  };
}

async function create(state, body) {
  const started = performance.now();
  const response = await fetch(`${state.gateway}/v2/clusters`, {
    method: 'POST',
    headers: { authorization: `Bearer ${state.key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const cluster = await response.json();
  const ms = performance.now() - started;
  if (response.status !== 201) {
    throw new Error(`POST /v2/clusters: HTTP ${response.status} ${JSON.stringify(cluster)}`);
  }
  return { id: cluster.id, ms };
}

/** Waits until pod-lifecycle has created every member pod of the clusters. */
async function membersCreated(sql, clusterIds, expected) {
  const deadline = performance.now() + 60_000;
  for (;;) {
    const { rows } = await sql.query(
      'SELECT count(*)::int AS n FROM pod_lifecycle.pods WHERE cluster_id = ANY($1::text[])',
      [clusterIds],
    );
    if (rows[0].n >= expected) return;
    if (performance.now() > deadline) {
      throw new Error(`pod-lifecycle created ${rows[0].n} of ${expected} member pods in 60 s`);
    }
    await sleep(50);
  }
}

/** The raw SQL reservation of `PODS` pods in `group` (bench/lib/raw-reservation.mjs), timed; then undone (untimed). */
async function sqlReservation(client, group, tag) {
  const started = performance.now();
  await rawReservation(client, {
    gpuTypeId: group.gpuTypeId,
    dataCenterId: group.dataCenterId,
    podIds: Array.from({ length: PODS }, (_, n) => `bench-sql-${tag}-${n}`),
  });
  const ms = performance.now() - started;
  await undoRawReservations(client, 'bench-sql-');
  return ms;
}

/** Waits for the apps to go quiet after a create (see the head of this file), remembering how long it took. */
async function settle(state) {
  const { seconds, quiet } = await quiesce(state.system, { timeoutMs: 20_000 });
  state.quietWaits.push({ seconds, quiet });
}

function quietNote(waits) {
  const seconds = waits.map((w) => w.seconds);
  const late = waits.filter((w) => !w.quiet).length;
  return (
    `after each API create the apps went quiet (bench/lib/quiesce.mjs) before the next measurement: ` +
    `${percentile(seconds, 50).toFixed(1)} s median, ${Math.max(...seconds).toFixed(1)} s at most` +
    (late ? `; ${late} of ${waits.length} waits ran out at 20 s` : '')
  );
}

async function twentyCreates(state, { concurrent }) {
  const group = await bestGroup(state.sql, CONCURRENT * SMALL_PODS);
  const bodies = Array.from({ length: CONCURRENT }, (_, n) => clusterBody(group, SMALL_PODS, n));
  const started = performance.now();
  let created;
  if (concurrent) {
    created = await Promise.all(bodies.map((body) => create(state, body)));
  } else {
    created = [];
    for (const body of bodies) created.push(await create(state, body));
  }
  const ms = performance.now() - started;
  await membersCreated(
    state.sql,
    created.map((c) => c.id),
    CONCURRENT * SMALL_PODS,
  );
  await settle(state);
  return { wall: ms };
}

export default {
  id: 'placement',
  title: 'cluster placement',
  rounds: (ctx) => quickRounds(ctx, 3),
  async setup(ctx) {
    const creates = ctx.quick ? 1 : 4;
    return {
      settings: {
        hosts: ctx.fleet.hosts,
        pods: PODS,
        createsPerRound: creates,
        smallClusterPods: SMALL_PODS,
        concurrent: CONCURRENT,
      },
      creates,
      gateway: ctx.system.url('gateway'),
      system: ctx.system,
      key: ctx.key,
      sql: ctx.sql,
      client: await ctx.sql.connect(),
      groups: [],
      quietWaits: [],
    };
  },
  async teardown(state) {
    state.client.release();
  },
  sides: {
    'api 250': {
      label: 'POST /v2/clusters (250 pods × 1 GPU) → 201, through gateway, JetStream and cluster-scheduler',
      async run(state, { round }) {
        const samples = [];
        state.groups = [];
        for (let i = 0; i < state.creates; i++) {
          const group = await bestGroup(state.sql, PODS);
          state.groups.push(group);
          const cluster = await create(state, clusterBody(group, PODS, `${round}-${i}`));
          samples.push(cluster.ms);
          await membersCreated(state.sql, [cluster.id], PODS);
          await settle(state);
        }
        return { p50: percentile(samples, 50), p99: percentile(samples, 99) };
      },
    },
    'sql 250': {
      label:
        'raw SQL reservation transaction of the same 250 pods in the same place, on a plain pg connection',
      async run(state, { round }) {
        const samples = [];
        for (let i = 0; i < state.creates; i++) {
          samples.push(await sqlReservation(state.client, state.groups[i], `${round}-${i}`));
        }
        return { p50: percentile(samples, 50), p99: percentile(samples, 99) };
      },
    },
    '20 concurrent': {
      label: `20 × POST /v2/clusters (${SMALL_PODS} pods each) at once, until the last 201`,
      run: (state) => twentyCreates(state, { concurrent: true }),
    },
    '20 sequential': {
      label: `the same 20 creates one after another`,
      run: (state) => twentyCreates(state, { concurrent: false }),
    },
  },
  comparisons: [
    {
      label: '250-pod create → 201, p50',
      unit: 'ms',
      better: 'lower',
      ours: ['api 250', 'p50'],
      baseline: ['sql 250', 'p50'],
    },
    {
      label: '250-pod create → 201, p99',
      unit: 'ms',
      better: 'lower',
      ours: ['api 250', 'p99'],
      baseline: ['sql 250', 'p99'],
    },
    {
      label: '20 creates, wall time',
      unit: 'ms',
      better: 'lower',
      ours: ['20 concurrent', 'wall'],
      baseline: ['20 sequential', 'wall'],
    },
  ],
  notes: (state) => [
    `${state.creates} creates of 250 pods per round and side: the p99 of a round is its slowest create`,
    'created clusters are kept, so the fleet fills as rounds go (alike for both sides); the raw SQL reservations are undone',
    quietNote(state.quietWaits),
  ],
};
