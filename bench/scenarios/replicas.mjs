// Replicas: the throughput scenario's load against one gateway and one queue-broker, and against two of each.
//   one       the running gateway and queue-broker; 32 concurrent clients POST /v2/{endpoint}/run to it, 2 SDK
//             echo worker processes × 8 slots take from it; done when the broker has every job COMPLETED;
//   two       a second gateway and a second queue-broker (same environment, database and NATS prefix, a port of
//             their own), started for the first round that uses them and kept to the end, as a deployment keeps
//             its replicas; the clients' submits go round-robin over the two gateways, and worker n talks to
//             gateway n mod 2. BENCH_REPLICAS_FRESH=1 starts them for each round and stops them after it instead.
// The workers of either side start with the round and stop after it, so both sides pay the same. jobs/s = N /
// (last job finished − first submit started); p99 = of each job's submit start → finished. On 2 cores two
// replicas have no core of their own: the expectation is no gain, and no loss beyond noise (ratio ≈ 1).
import { benchEndpoint, startEchoWorkers, WORKER_CONCURRENCY, WORKERS } from '../lib/fixtures.mjs';
import { submitJobs, throughputOf, untilFinished } from '../lib/jobs-load.mjs';
import { pathCounter } from '../lib/path-counts.mjs';
import { processCpuMs } from '../lib/process-cpu.mjs';

const SUBMITTERS = 32;
const DRAIN_TIMEOUT_MS = 120_000;
const WARMUP_JOBS = 50;
/**
 * Jobs sent through the round's gateways and workers before its timed batch, and waited for: a replica started for
 * the round has a cold JIT and empty caches, and the ratio is about serving with two replicas, not starting one.
 */
const SETTLE_JOBS = Number(process.env.BENCH_SETTLE_JOBS ?? 40);
const REPLICATED = ['gateway', 'queue-broker'];

const cpuOf = (pids) => pids.reduce((sum, pid) => sum + processCpuMs(pid), 0);

/**
 * One round of load through `gateways` (URLs), workers spread over them; `settle` untimed jobs first. `jobPathPids`:
 * the gateways and queue-brokers, whose CPU time over the timed batch is reported per job (with the workers').
 */
async function load(state, gateways, appPidsByRole, podPrefix, count, settle) {
  const workers = startEchoWorkers({
    endpoint: state.endpoint,
    gateways,
    count: WORKERS,
    concurrency: WORKER_CONCURRENCY,
    podPrefix,
  });
  const submit = (n) =>
    submitJobs({
      bases: gateways.map((url) => `${url}/v2/${state.endpoint.id}`),
      key: state.ctx.key,
      count: n,
      submitters: SUBMITTERS,
    });
  try {
    if (settle > 0) {
      const settled = await submit(settle);
      await untilFinished(state.ctx.sql, [...settled.keys()], { timeoutMs: DRAIN_TIMEOUT_MS });
    }
    const roles = { ...appPidsByRole, workers: workers.map((worker) => worker.pid) };
    const counter = pathCounter(state.ctx);
    await counter?.start();
    const cpuBefore = Object.fromEntries(Object.entries(roles).map(([role, pids]) => [role, cpuOf(pids)]));
    const submittedAt = await submit(count);
    const finishedAt = await untilFinished(state.ctx.sql, [...submittedAt.keys()], {
      timeoutMs: DRAIN_TIMEOUT_MS,
    });
    const cpuPerJob = Object.fromEntries(
      Object.entries(roles).map(([role, pids]) => [role, (cpuOf(pids) - cpuBefore[role]) / count]),
    );
    const result = {
      ...throughputOf(count, submittedAt, finishedAt),
      cpuMsPerJob: Object.values(cpuPerJob).reduce((a, b) => a + b, 0),
      gatewayCpuMsPerJob: cpuPerJob.gateways,
      brokerCpuMsPerJob: cpuPerJob.brokers,
      workerCpuMsPerJob: cpuPerJob.workers,
    };
    const counts = await counter?.stop(count);
    if (!counts) return result;
    console.log(`    ${podPrefix}: per job ${JSON.stringify(counts)}`);
    return { ...result, xactPerJob: counts.xactPerJob, natsPerJob: counts.natsPerJob };
  } finally {
    await Promise.all(workers.map((worker) => worker.stop()));
  }
}

const tag = (round, warmup) => (warmup ? 'w' : String(round));

/**
 * The replicas are started for the first round that needs them and kept (idle, and in the queue-broker's case
 * standing by, during the rounds that do not use them) until the scenario ends, so that they are measured warm, as
 * a deployment's long-running replicas are, rather than seconds-old processes whose JIT has seen 40 jobs against a
 * gateway and broker that have run every scenario before (measured: two/one 0.62 with replicas started per round,
 * CPU per job 1.92×; 1.04 and 1.12× kept, docs/adr/0013). BENCH_REPLICAS_FRESH=1 starts them per round, to see
 * what a replica costs in its first seconds.
 */
const KEEP_REPLICAS = !process.env.BENCH_REPLICAS_FRESH;

async function replicaOf(state, name) {
  state.replicas ??= new Map();
  const kept = state.replicas.get(name);
  if (kept) return kept;
  const started = state.ctx.system.startReplica(name);
  if (KEEP_REPLICAS) state.replicas.set(name, started);
  return started;
}

/**
 * One round of a side: one more replica of each app of `extra` (kept from an earlier round, or started for this one
 * and stopped after it: BENCH_REPLICAS_FRESH), the load through every gateway.
 */
async function runSide(state, { round, warmup }, side, extra) {
  const { system } = state.ctx;
  const started = await Promise.allSettled(extra.map((name) => replicaOf(state, name)));
  const replicas = started.filter((s) => s.status === 'fulfilled').map((s) => s.value);
  try {
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    const of = (name) => [
      system.pid(name),
      ...replicas.filter((r) => r.name.startsWith(`${name}@`)).map((r) => r.pid),
    ];
    const gateways = [
      system.url('gateway'),
      ...replicas.filter((r) => r.name.startsWith('gateway@')).map((replica) => replica.url),
    ];
    const [count, settle] = warmup ? [WARMUP_JOBS, 0] : [state.jobs, SETTLE_JOBS];
    const pids = { gateways: of('gateway'), brokers: of('queue-broker') };
    return await load(state, gateways, pids, `bench-${side}-${tag(round, warmup)}`, count, settle);
  } finally {
    // The gateway first: nothing routes work to the broker replica once it goes.
    if (!KEEP_REPLICAS) for (const replica of replicas) await replica.stop();
  }
}

/**
 * BENCH_REPLICAS_SIDES=gateways,brokers adds sides with only the gateway or only the queue-broker replicated (to
 * tell which of the two costs what).
 */
const EXTRA_SIDES = Object.fromEntries(
  (process.env.BENCH_REPLICAS_SIDES ?? '')
    .split(',')
    .filter(Boolean)
    .map((side) => {
      const name = { gateways: 'gateway', brokers: 'queue-broker' }[side];
      if (!name) throw new Error(`BENCH_REPLICAS_SIDES: unknown side ${side}`);
      return [
        side,
        { label: `two ${side} only`, run: (state, options) => runSide(state, options, side, [name]) },
      ];
    }),
);

export default {
  id: 'replicas',
  title: 'replicas: two vs one',
  async setup(ctx) {
    const jobs = ctx.quick ? 200 : 400;
    return {
      settings: { jobsPerRound: jobs, submitters: SUBMITTERS, replicated: REPLICATED },
      ctx,
      jobs,
      endpoint: await benchEndpoint(ctx, 'bench-replicas'),
    };
  },
  async teardown(state) {
    const kept = await Promise.allSettled(state.replicas?.values() ?? []);
    for (const s of kept) if (s.status === 'fulfilled') await s.value.stop();
  },
  sides: {
    one: {
      label: `one gateway and one queue-broker: POST /v2/{id}/run from ${SUBMITTERS} clients, ${WORKERS} SDK echo workers × ${WORKER_CONCURRENCY}`,
      run: (state, options) => runSide(state, options, 'one', []),
    },
    two: {
      label: `two gateways and two queue-brokers: the same load, clients round-robin over the gateways, worker n on gateway n mod 2`,
      run: (state, options) => runSide(state, options, 'two', REPLICATED),
    },
    ...EXTRA_SIDES,
  },
  comparisons: [
    {
      label: 'jobs/s, two replicas vs one',
      unit: 'jobs/s',
      better: 'higher',
      ours: ['two', 'jobsPerSec'],
      baseline: ['one', 'jobsPerSec'],
    },
    {
      label: 'p99 submit → finished, two replicas vs one',
      unit: 'ms',
      better: 'lower',
      ours: ['two', 'p99'],
      baseline: ['one', 'p99'],
    },
    {
      label: 'CPU per job of the gateways, queue-brokers and workers, two replicas vs one',
      unit: 'ms',
      better: 'lower',
      ours: ['two', 'cpuMsPerJob'],
      baseline: ['one', 'cpuMsPerJob'],
    },
  ],
  notes: (state) => [
    `${state.jobs} jobs per round and side, timed after ${SETTLE_JOBS} untimed jobs through the same gateways and workers; ` +
      (KEEP_REPLICAS
        ? 'the second gateway and queue-broker are started before the first "two" round and kept until the end, as a deployment keeps its replicas (idle, the broker standing by, during the "one" rounds, their CPU not counted there; BENCH_REPLICAS_FRESH=1 starts them per round)'
        : 'the second gateway and queue-broker are started before each "two" round (BENCH_REPLICAS_FRESH; not timed) and stopped after it'),
    'only the gateway and the queue-broker are on the job path and replicated here (the bench runs pod-lifecycle on the local runtime, which is single-replica by design)',
    'on 2 cores a second replica gets no core of its own: the expectation is a ratio ≈ 1 (no gain, no loss beyond noise)',
    'CPU per job: user + system time of the gateway(s), queue-broker(s) and worker processes over the timed batch (/proc/<pid>/stat), divided by its jobs; on a saturated machine, what more CPU per job costs is throughput',
  ],
};
