// The live fleet (docs/adr/0039-live-fleet.md) over the generated 10,000-host fleet, with an operator's key:
//   routes (sequential GETs on a kept-alive connection, p50/p99 a round):
//     ours      GET /v2/fleet/capacity (every host summed per data center and GPU type); GET /v2/fleet/hosts?limit=100
//               (the first page of 10,000 hosts, by id); the same filtered by dataCenterId, gpuTypeId and
//               state=READY; GET /v2/fleet/hosts/{id} (a host with the pods on it);
//     baseline  a bare authenticated route of the same gateway, GET /v2/account/api-keys (the same key check, rate
//               limit and one small indexed read, as in the audit scenario), so the ratio is what the fleet adds.
//   drain of a host with 64 workers (bench/lib/fleet-drain.mjs):
//     baseline  "start": the endpoint's 64 workers started from zero (workersMin 0 → 64) while the other hosts of
//               its group are cordoned, so all 64 land on one registered host of 64 GPUs: until 64 are RUNNING;
//     ours      "drain": the other hosts uncordoned, a steady load of jobs going, POST /v2/fleet/hosts/{id}/drain:
//               until 64 workers are RUNNING on other hosts and none is left on the drained one (the autoscaler
//               replaces first, then stops), then every job accepted during it is checked COMPLETED (jobs lost =
//               accepted − completed). Then the endpoint goes back to zero workers and the host to READY (untimed).
// Workers are the SDK sleep worker under pod-lifecycle's local runtime (one Node process each), each job JOB_MS
// long, so the old workers hold jobs when they are stopped; the warm-up round
// drains WARMUP_WORKERS of them only; `--fleet-workers N` runs N workers instead of 64 (the host keeps 64 GPUs).
import { createOperator, client } from '../lib/api.mjs';
import {
  JOB_MS,
  LOAD_PER_SECOND,
  drainEndpoint,
  groupHosts,
  jobOutcomes,
  readyBigHost,
  setCordoned,
  smallestGroup,
  steadyLoad,
  until,
  workerPods,
} from '../lib/fleet-drain.mjs';
import { sequentialGets } from '../lib/http-latency.mjs';
import { quiesce } from '../lib/quiesce.mjs';

const WORKERS = 64;
const WARMUP_WORKERS = 8;
/** The full run's rounds at most: each round starts and drains 64 worker processes. */
const MAX_ROUNDS = 5;

/** A route's side; the first of a round waits for the apps to go quiet (the round before drained a host). */
const routeSide = (label, pick, { first = false } = {}) => ({
  label,
  async run(state, { warmup }) {
    if (first) state.quietWaits.push((await quiesce(state.system, { timeoutMs: 30_000 })).seconds);
    return sequentialGets(pick(state), state.headers, warmup ? 20 : state.requests);
  },
});

/** The endpoint back at zero workers and the big host READY with the rest of its group cordoned. */
async function startSide(state, { warmup }) {
  const { operator, endpoint, sql, bigHost } = state;
  const workers = warmup ? WARMUP_WORKERS : state.workers;
  await until('the endpoint to have no worker', async () => (await workerPods(sql, endpoint.id)).live === 0);
  await readyBigHost(operator, state.group, bigHost, WORKERS);
  await setCordoned(operator, state.others, true);
  await quiesce(state.system, { timeoutMs: 20_000 });
  const started = performance.now();
  await endpoint.size(workers);
  const pods = await until(`${workers} workers RUNNING on ${bigHost}`, async () => {
    const now = await workerPods(sql, endpoint.id);
    return now.running >= workers && now;
  });
  const ms = performance.now() - started;
  if (pods.runningOn(bigHost) !== workers) {
    throw new Error(
      `${pods.runningOn(bigHost)} of ${workers} workers started on ${bigHost}: ${JSON.stringify(pods.rows)}`,
    );
  }
  return { start: ms };
}

async function drainSide(state, { warmup }) {
  const { operator, endpoint, sql, bigHost } = state;
  const workers = warmup ? WARMUP_WORKERS : state.workers;
  await setCordoned(operator, state.others, false);
  const load = steadyLoad(endpoint);
  let ids;
  let timings;
  try {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const started = performance.now();
    await operator.post(`/v2/fleet/hosts/${bigHost}/drain`, {
      reason: 'bench: replace its workers',
      deadlineSeconds: 3600,
    });
    let replacedAt = null;
    await until(`${workers} workers replaced off ${bigHost}`, async () => {
      const pods = await workerPods(sql, endpoint.id);
      if (replacedAt === null && pods.runningElsewhere(bigHost) >= workers) replacedAt = performance.now();
      if (replacedAt === null || pods.liveOn(bigHost) > 0) return false;
      const host = await operator.get(`/v2/fleet/hosts/${bigHost}`);
      return host.pods === 0;
    });
    const drainedAt = performance.now();
    timings = { replaced: drainedAt - started, running: replacedAt - started };
  } finally {
    ids = await load.stop();
  }
  const jobs = await jobOutcomes(sql, ids, { endpointId: endpoint.id, hostId: bigHost });
  state.jobs.push({ warmup, ...jobs });
  await endpoint.size(0);
  return { ...timings, accepted: jobs.accepted, completed: jobs.completed };
}

export default {
  id: 'fleet',
  title: 'the live fleet: routes over 10,000 hosts, and a drain of a host with 64 workers',
  rounds: (ctx) =>
    ctx.quick && !ctx.roundsGiven ? Math.min(ctx.rounds, 3) : Math.min(ctx.rounds, MAX_ROUNDS),
  async setup(ctx) {
    const { key } = await createOperator(ctx, 'bench-fleet-operator');
    const gateway = ctx.system.url('gateway');
    const operator = client(gateway, key);
    const capacity = await operator.get('/v2/fleet/capacity');
    const busiest = [...capacity.gpus].sort((a, b) => b.hosts - a.hosts)[0];
    const filter = new URLSearchParams({
      dataCenterId: busiest.dataCenterId,
      gpuTypeId: busiest.gpuTypeId,
      state: 'READY',
      limit: '100',
    });
    const filtered = await operator.get(`/v2/fleet/hosts?${filter}`);
    const hostId = filtered.hosts[0].id;
    const group = smallestGroup(ctx.fleet.file);
    const bigHost = `bench-drain-${ctx.runId}`;
    const others = await groupHosts(operator, group, bigHost);
    const endpoint = await drainEndpoint(ctx, group);
    const requests = ctx.quick ? 100 : 200;
    const workers = ctx.fleetWorkers ?? WORKERS;
    return {
      settings: {
        hosts: ctx.fleet.hosts,
        requests,
        filter: Object.fromEntries(filter),
        filteredHosts: filtered.hosts.length,
        workers,
        warmupWorkers: WARMUP_WORKERS,
        group: { tier: group.tier, region: group.region, hosts: others.length, gpusInFile: group.gpusInFile },
        bigHost: { id: bigHost, gpuTypeId: group.gpuTypeId, dataCenterId: group.dataCenterId, gpus: WORKERS },
        loadPerSecond: LOAD_PER_SECOND,
      },
      requests,
      workers,
      headers: { authorization: `Bearer ${key}` },
      urls: {
        capacity: `${gateway}/v2/fleet/capacity`,
        first: `${gateway}/v2/fleet/hosts?limit=100`,
        filtered: `${gateway}/v2/fleet/hosts?${filter}`,
        host: `${gateway}/v2/fleet/hosts/${hostId}`,
        bare: `${gateway}/v2/account/api-keys`,
      },
      system: ctx.system,
      sql: ctx.sql,
      operator,
      group,
      bigHost,
      others,
      endpoint,
      jobs: [],
      quietWaits: [],
    };
  },
  async teardown(state) {
    await state.endpoint.size(0).catch(() => undefined);
    await setCordoned(state.operator, state.others, false).catch(() => undefined);
  },
  sides: {
    capacity: routeSide('GET /v2/fleet/capacity', (s) => s.urls.capacity, { first: true }),
    hosts: routeSide('GET /v2/fleet/hosts?limit=100 (the first page)', (s) => s.urls.first),
    filtered: routeSide(
      'GET /v2/fleet/hosts?dataCenterId=…&gpuTypeId=…&state=READY&limit=100',
      (s) => s.urls.filtered,
    ),
    host: routeSide('GET /v2/fleet/hosts/{id} (a host and the pods on it)', (s) => s.urls.host),
    bare: routeSide(
      'GET /v2/account/api-keys (a bare authenticated route of the same gateway)',
      (s) => s.urls.bare,
    ),
    start: {
      label: `the endpoint's workers (${WORKERS}, or --fleet-workers) started from zero on one host: until all RUNNING`,
      run: startSide,
    },
    drain: {
      label:
        'POST /v2/fleet/hosts/{id}/drain of that host under a steady load: until all RUNNING elsewhere, none left on it',
      run: drainSide,
    },
  },
  comparisons: [
    ...['capacity', 'hosts', 'filtered', 'host'].flatMap((side) =>
      ['p99', 'p50'].map((metric) => ({
        label: `${{ capacity: 'capacity', hosts: 'hosts, first page', filtered: 'hosts, filtered page', host: 'a host' }[side]} ${metric} vs a bare authenticated route`,
        unit: 'ms',
        better: 'lower',
        ours: [side, metric],
        baseline: ['bare', metric],
      })),
    ),
    {
      label: 'drain: all workers replaced (RUNNING elsewhere, none left on the host) vs started from zero',
      unit: 'ms',
      better: 'lower',
      ours: ['drain', 'replaced'],
      baseline: ['start', 'start'],
    },
    {
      label: 'drain: all replacements RUNNING vs started from zero',
      unit: 'ms',
      better: 'lower',
      ours: ['drain', 'running'],
      baseline: ['start', 'start'],
      oursLabel: 'drain → as many workers RUNNING on other hosts (the old ones may still be stopping)',
    },
    {
      label: 'drain: jobs completed of those accepted during it (1 = none lost)',
      unit: 'jobs',
      better: 'higher',
      ours: ['drain', 'completed'],
      baseline: ['drain', 'accepted'],
      oursLabel: 'jobs COMPLETED',
      baselineLabel: `jobs accepted by POST /run (${LOAD_PER_SECOND} a second through the drain, ${JOB_MS} ms each)`,
    },
  ],
  notes: (state) => {
    const rounds = state.jobs.filter((j) => !j.warmup);
    const lost = rounds.reduce((sum, j) => sum + j.accepted - j.completed, 0);
    const accepted = rounds.reduce((sum, j) => sum + j.accepted, 0);
    const onDrained = rounds.reduce((sum, j) => sum + j.onDrained, 0);
    const again = rounds.reduce((sum, j) => sum + j.leasedAgain, 0);
    return [
      `${state.requests} sequential requests per round and route (one connection, an operator's key), once the apps were idle (waited ${Math.max(...state.quietWaits).toFixed(1)} s at most); the filtered page: ${new URLSearchParams(state.settings.filter)} (${state.settings.filteredHosts} hosts)`,
      `drain: ${state.workers} workers on ${state.bigHost} (${WORKERS} × ${state.group.gpuTypeId}, ${state.group.dataCenterId}) in the endpoint's group (${state.group.tier} in ${state.group.region}: ${state.others.length} other hosts, cordoned for the start, uncordoned for the drain); warm-up round with ${WARMUP_WORKERS} workers`,
      `jobs lost over the rounds: ${lost} of ${accepted} accepted${lost ? ` (${JSON.stringify(rounds.map((j) => j.byStatus))})` : ''}; ${onDrained} of them served last by the workers of the draining host, ${again} leased more than once (each job ${JOB_MS} ms)`,
      'workers are local-runtime Node processes (gpucp/sleep-worker, the SDK as the echo worker): a start is a process spawn plus the SDK asking for its first job, not an image pull',
    ];
  },
};
