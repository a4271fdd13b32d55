// Quotas and preemption over the generated 10,000-host fleet (docs/adr/0037-quotas-and-preemption.md).
//   admission (single-pod POST /v2/pods → 201, 1 GPU, in the GPU type and data center with the most free GPUs):
//     ours      quotas on: the bench user's account has a quota in a cohort of 10 accounts, each with a limit of
//               the type, so every placement reads the quotas, the cohort's use and checks the ledger's rules;
//     baseline  quotas off: no quota row at all (what a deployment without quotas runs), the same creates.
//   preemption (a high-priority 8-GPU pod → 201, in the smallest group of 8-GPU hosts, which the bench user filled
//   with low-priority 8-GPU pods):
//     ours      the group full: the scheduler plans the preemption over a snapshot, releases the newest
//               low-priority pod, records it and places the new pod in one command;
//     baseline  the same create with one host of the group free (no preemption needed).
// Pods stay PROVISIONING in the harness (SIM_PROVISION_MS is an hour), so "→ RUNNING" is this 201 plus the
// runtime's start, alike on both sides; the victim's EXITED is timed too (the preempted event → pod-lifecycle).
// Every pod made here is terminated (untimed) before the next measurement, so the fleet stays as it was.
import { quickRounds } from '../lib/rounds.mjs';
import { percentile } from '../lib/stats.mjs';

const S = 'cluster_scheduler';
const CREATES = 40;
const PEERS = 9;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function group(sql, order) {
  const { rows } = await sql.query(
    `SELECT gpu_type_id, data_center_id, sum(free_gpus)::int AS free FROM ${S}.hosts
      WHERE scheduling_state = 'READY' AND healthy AND gpu_type_id IS NOT NULL GROUP BY 1, 2
     HAVING min(gpu_count) = 8 AND max(gpu_count) = 8 ORDER BY 3 ${order}, 1, 2 LIMIT 1`,
  );
  return { gpuTypeId: rows[0].gpu_type_id, dataCenterId: rows[0].data_center_id, free: rows[0].free };
}

const podBody = (g, n, gpus, priority) => ({
  name: `bench-q-${n}`,
  image: 'runpod/base:0.6.2',
  gpu: { id: g.gpuTypeId, count: gpus },
  dataCenterIds: [g.dataCenterId],
  disk: 10,
  priority,
});

async function timedCreate(state, body) {
  const started = performance.now();
  const response = await fetch(`${state.gateway}/v2/pods`, {
    method: 'POST',
    headers: { authorization: `Bearer ${state.key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = await response.json();
  return { status: response.status, id: answer.id, ms: performance.now() - started, answer };
}

/** Terminates the pods and waits until the scheduler has released their GPUs. */
async function terminate(state, ids) {
  for (const id of ids) await state.api.delete(`/v2/pods/${id}`);
  const deadline = performance.now() + 60_000;
  while (performance.now() < deadline) {
    const { rows } = await state.sql.query(
      `SELECT count(*)::int AS n FROM ${S}.reservations WHERE pod_id = ANY($1::text[])`,
      [ids],
    );
    if (rows[0].n === 0) return;
    await sleep(50);
  }
  throw new Error(`the GPUs of ${ids.length} terminated pods were not released in 60 s`);
}

async function setQuotas(state, on) {
  await state.sql.query(`DELETE FROM ${S}.quotas WHERE account_id = ANY($1::text[])`, [state.accounts]);
  if (!on) return;
  const limits = JSON.stringify([
    { gpuTypeId: state.busy.gpuTypeId, dataCenterId: null, gpus: 1_000_000, borrowingLimit: null },
  ]);
  await state.sql.query(
    `INSERT INTO ${S}.quotas (account_id, account_name, cohort, limits, updated_at)
     SELECT a, a, 'bench', $2::jsonb, now() FROM unnest($1::text[]) AS a`,
    [state.accounts, limits],
  );
}

async function admissions(state, on, round) {
  await setQuotas(state, on);
  const samples = [];
  const ids = [];
  for (let i = 0; i < state.creates; i++) {
    const made = await timedCreate(state, podBody(state.busy, `${on ? 'on' : 'off'}-${round}-${i}`, 1));
    if (made.status !== 201) {
      throw new Error(`POST /v2/pods: HTTP ${made.status} ${JSON.stringify(made.answer)}`);
    }
    samples.push(made.ms);
    ids.push(made.id);
  }
  await terminate(state, ids);
  return { p50: percentile(samples, 50), p99: percentile(samples, 99) };
}

/** Fills the small group with low-priority 8-GPU pods of the bench user's until the scheduler refuses one. */
async function fill(state) {
  for (let n = 0; ; n++) {
    const made = await timedCreate(state, podBody(state.small, `fill-${state.filled.length}`, 8, 'low'));
    if (made.status === 409) return;
    if (made.status !== 201) throw new Error(`fill: HTTP ${made.status} ${JSON.stringify(made.answer)}`);
    state.filled.push(made.id);
  }
}

async function highCreate(state, round, preempting) {
  if (preempting) await fill(state);
  const made = await timedCreate(state, podBody(state.small, `high-${round}-${preempting}`, 8, 'high'));
  if (made.status !== 201) throw new Error(`high: HTTP ${made.status} ${JSON.stringify(made.answer)}`);
  let exitedMs = 0;
  if (preempting) {
    const started = performance.now();
    for (;;) {
      const { rows } = await state.sql.query(
        `SELECT count(*)::int AS n FROM pod_lifecycle.pods WHERE id = ANY($1::text[]) AND status = 'EXITED'`,
        [state.filled],
      );
      if (rows[0].n > state.exited) {
        state.exited = rows[0].n;
        break;
      }
      if (performance.now() - started > 30_000) throw new Error('no preempted pod went EXITED in 30 s');
      await sleep(5);
    }
    exitedMs = made.ms + performance.now() - started;
  }
  await terminate(state, [made.id]);
  return preempting ? { created: made.ms, victimExited: exitedMs } : { created: made.ms };
}

export default {
  id: 'quotas',
  title: 'quotas and preemption',
  rounds: (ctx) => quickRounds(ctx, 3),
  async setup(ctx) {
    const busy = await group(ctx.sql, 'DESC');
    const small = await group(ctx.sql, 'ASC');
    return {
      settings: {
        hosts: ctx.fleet.hosts,
        createsPerRound: ctx.quick ? 15 : CREATES,
        cohort: PEERS + 1,
        small,
      },
      creates: ctx.quick ? 15 : CREATES,
      gateway: ctx.system.url('gateway'),
      key: ctx.key,
      api: ctx.api,
      sql: ctx.sql,
      busy,
      small,
      accounts: [ctx.userId, ...Array.from({ length: PEERS }, (_, i) => `bench-peer-${i}`)],
      filled: [],
      exited: 0,
    };
  },
  async teardown(state) {
    await setQuotas(state, false);
    if (state.filled.length) await terminate(state, state.filled);
  },
  sides: {
    'quotas on': {
      label: 'POST /v2/pods (1 GPU) → 201 with a quota in a 10-account cohort',
      run: (state, { round }) => admissions(state, true, round),
    },
    'quotas off': {
      label: 'the same creates with no quota at all',
      run: (state, { round }) => admissions(state, false, round),
    },
    preempting: {
      label: 'a high-priority 8-GPU pod → 201 in a group full of low-priority pods: one preempted',
      run: (state, { round }) => highCreate(state, round, true),
    },
    free: {
      label: 'the same create with a host of the group free',
      run: (state, { round }) => highCreate(state, round, false),
    },
  },
  comparisons: [
    {
      label: 'pod create → 201, p50',
      unit: 'ms',
      better: 'lower',
      ours: ['quotas on', 'p50'],
      baseline: ['quotas off', 'p50'],
    },
    {
      label: 'pod create → 201, p99',
      unit: 'ms',
      better: 'lower',
      ours: ['quotas on', 'p99'],
      baseline: ['quotas off', 'p99'],
    },
    {
      label: 'high-priority create → 201',
      unit: 'ms',
      better: 'lower',
      ours: ['preempting', 'created'],
      baseline: ['free', 'created'],
    },
    {
      label: 'high-priority create → victim EXITED',
      unit: 'ms',
      better: 'lower',
      ours: ['preempting', 'victimExited'],
      baseline: ['free', 'created'],
      baselineLabel: 'the create → 201 with no preemption',
    },
  ],
  notes: (state) => [
    `${state.creates} single-pod creates per round and side in ${state.busy.gpuTypeId} / ${state.busy.dataCenterId}, terminated after each round`,
    `preemption in ${state.small.gpuTypeId} / ${state.small.dataCenterId} (${state.small.free} GPUs free at the start), filled with ${state.filled.length} low-priority 8-GPU pods`,
  ],
};
