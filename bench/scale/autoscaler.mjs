// The autoscaler in a crowd: `size.endpoints` queue endpoints (1,000 at L), each with one live worker (workersMin 1:
// a simulated pod RUNNING, its worker registered with the broker), made through the API as a user makes them; the
// control loop then looks after all of them on every tick.
//   autoscaler.tick-p50 / tick-p99   one control-loop pass over every endpoint (apps/endpoint-autoscaler, control-
//     loop.service.ts), against its tick period. Each tick is timed exactly, not read off histogram buckets: the
//     harness scrapes the app's own autoscaler_tick_seconds every 200 ms, and a scrape whose _count grew by one
//     since the previous scrape gives that tick's duration as the growth of _sum (ticks are ≥ AUTOSCALER_TICK_MS
//     apart, so two never fall between two scrapes; one that did would be left out and counted in the notes).
//     The baseline is the tick period itself, AUTOSCALER_TICK_MS = 1000 ms: a constant, not measured.
//   autoscaler.burst-decision   a burst of jobs at one endpoint with zero workers among the crowd → its scale-up
//     decision (the worker's pod.cmd.create, seen on NATS), against an external poller that runs all along,
//     GET /v2/{id}/health every AUTOSCALER_TICK_MS, "deciding" on its first answer with inQueue > 0 (as in
//     bench/scenarios/autoscaler.mjs, which measures the same with two endpoints in the system). Each round's
//     burst goes to an endpoint of its own, seeded at zero workers, so no round waits for a scale-down; the
//     round's ticks are timed while it goes, and the warm-up burst goes while the crowd's workers come up.
// Worker pods run no process: their image is not in the local runtime's catalog, so pod-lifecycle simulates them,
// and their env (SIM_PROVISION_MS, SIM_START_MS = 0) makes them RUNNING at once.
import { createTemplate, saveEndpoint } from '../lib/api.mjs';
import { jobRequest, sleep, startPoller, until, within } from '../lib/burst.mjs';
import { pool } from '../lib/jobs-load.mjs';
import { median, percentile } from '../lib/stats.mjs';

const TICK_MS = 1000; // endpoint-autoscaler's AUTOSCALER_TICK_MS default, which the system runs with
const SCRAPE_MS = 200;
const BURST = 4;
const WORKER_ENV = { SIM_PROVISION_MS: '0', SIM_START_MS: '0' };
const CROWD = 'crowd-';
const BURSTING = 'burst-';

/** The endpoints' live workers whose pod the autoscaler last saw RUNNING. */
async function runningWorkers(sql, prefix) {
  const { rows } = await sql.query(
    `SELECT count(*)::int AS n FROM endpoint_autoscaler.workers w
     JOIN endpoint_autoscaler.endpoints e ON e.id = w.endpoint_id
     WHERE starts_with(e.name, $1) AND w.desired = 'RUNNING' AND w.pod_status = 'RUNNING'`,
    [prefix],
  );
  return rows[0].n;
}

/** The histogram's running sum (s) and count, from the app's /metrics. */
async function tickTotals(metricsUrl) {
  const text = await (await fetch(metricsUrl)).text();
  const read = (name) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return { sum: read('autoscaler_tick_seconds_sum'), count: read('autoscaler_tick_seconds_count') };
}

/** The durations (ms) of the next `ticks` control-loop ticks, each exact; `skipped`: ticks that could not be. */
async function timeTicks(metricsUrl, ticks) {
  const durations = [];
  let skipped = 0;
  let last = await tickTotals(metricsUrl);
  const deadline = performance.now() + ticks * TICK_MS * 20 + 60_000;
  while (durations.length < ticks) {
    if (performance.now() > deadline) throw new Error(`${ticks} ticks did not come within the time allowed`);
    await sleep(SCRAPE_MS);
    const now = await tickTotals(metricsUrl);
    const grew = now.count - last.count;
    if (grew === 1) durations.push((now.sum - last.sum) * 1000);
    else if (grew > 1) skipped += grew;
    last = now;
  }
  return { durations, skipped };
}

/** One burst at an endpoint with no worker: to its pod.cmd.create on NATS, and to the poller's sighting. */
async function burst(env, state, endpointId) {
  const base = `${env.system.url('gateway')}/v2/${endpointId}`;
  const poller = startPoller(base, env.user.key, TICK_MS);
  try {
    // The poller's phase, and the autoscaler's, random with respect to the burst.
    await sleep(TICK_MS + Math.random() * TICK_MS);
    const polled = poller.next();
    const started = performance.now();
    const decided = new Promise((resolve) => {
      state.onCreate = (text, at) => {
        if (text.includes(endpointId) && at >= started) resolve(at);
      };
    });
    await Promise.all(
      Array.from({ length: BURST }, (_, n) =>
        jobRequest('POST', `${base}/run`, env.user.key, { input: { n } }),
      ),
    );
    const decisionAt = await within(30_000, `a pod.cmd.create for ${endpointId} on NATS`, decided);
    const polledAt = await within(30_000, 'the poller to see the burst', polled);
    return { decision: decisionAt - started, poller: polledAt - started };
  } finally {
    state.onCreate = null;
    await poller.stop();
  }
}

const state = { burstEndpoints: [], onCreate: null };

/** Hands each pod.cmd.create on NATS to the burst waiting for one; unsubscribe when done. */
function watchCreates({ nc, natsPrefix }) {
  return nc.subscribe(`${natsPrefix}.pod.cmd.create`, {
    callback: (error, msg) => {
      if (!error && state.onCreate) state.onCreate(msg.string(), performance.now());
    },
  });
}

export default {
  id: 'autoscaler',
  title: 'autoscaler in a crowd',

  async seed(env) {
    const { size, api, sql, log } = env;
    const started = performance.now();
    const { id: templateId } = await createTemplate(api, 'scale-sim-worker', 'bench/sim-worker:1');
    const common = { templateId, workersMax: 1, idleTimeout: 5, env: WORKER_ENV };
    await pool(size.endpoints, 8, (i) =>
      saveEndpoint(api, { ...common, name: `${CROWD}${i}`, workersMin: 1 }),
    );
    // One endpoint per burst (and one for a warm-up), at zero workers until its burst.
    state.burstEndpoints = [];
    for (let i = 0; i <= env.rounds; i++) {
      state.burstEndpoints.push(
        await saveEndpoint(api, { ...common, name: `${BURSTING}${i}`, workersMin: 0 }),
      );
    }
    log(
      `autoscaler: ${size.endpoints} endpoints saved in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    // The warm-up burst (its own endpoint) goes while the crowd's workers come up: it warms the burst path, and
    // waiting for it apart would only lengthen the run.
    const watch = watchCreates(env);
    try {
      await Promise.all([
        until(
          `${size.endpoints} workers RUNNING`,
          async () => (await runningWorkers(sql, CROWD)) >= size.endpoints,
          300_000,
          500,
        ),
        burst(env, state, state.burstEndpoints[0]),
      ]);
    } finally {
      watch.unsubscribe();
    }
    log(
      `autoscaler: ${size.endpoints} workers RUNNING after ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  },

  async run(env) {
    const { quick, rounds, system, sql, size } = env;
    const metricsUrl = system.metricsUrl('endpoint-autoscaler');
    const ticksPerRound = quick ? 3 : 20;
    const subscription = watchCreates(env);
    const tick = { p50: [], p99: [], all: [], skipped: 0 };
    const decision = { ours: [], baseline: [] };
    try {
      for (let round = 0; round < rounds; round++) {
        // The round's ticks are timed while its burst goes: a tick that decides the burst's scale-up is one of them.
        const [{ durations, skipped }, { decision: ours, poller }] = await Promise.all([
          timeTicks(metricsUrl, ticksPerRound),
          burst(env, state, state.burstEndpoints[round + 1]),
        ]);
        tick.p50.push(percentile(durations, 50));
        tick.p99.push(percentile(durations, 99));
        tick.all.push(...durations);
        tick.skipped += skipped;
        decision.ours.push(ours);
        decision.baseline.push(poller);
        env.log(
          `autoscaler ${size.name} round ${round + 1}: tick p50 ${tick.p50.at(-1).toFixed(1)} ms, ` +
            `p99 ${tick.p99.at(-1).toFixed(1)} ms; burst → decision ${ours.toFixed(0)} ms, poller ${poller.toFixed(0)} ms`,
        );
      }
    } finally {
      subscription.unsubscribe();
    }
    const running = await runningWorkers(sql, CROWD);
    const tickNotes = [
      `${size.endpoints} endpoints with a live worker (${running} RUNNING at the end); ${tick.all.length} ticks timed, ` +
        `${ticksPerRound} per round, timed while the round's burst goes; a round's p99 is the nearest rank of its ${ticksPerRound} ticks (the slowest ` +
        `for fewer than 100); over every round: p50 ${percentile(tick.all, 50).toFixed(1)} ms, ` +
        `p99 ${percentile(tick.all, 99).toFixed(1)} ms`,
      'each tick exact: the growth of autoscaler_tick_seconds_sum between two scrapes (every 200 ms) that saw ' +
        `_count grow by one${tick.skipped ? ` (${tick.skipped} ticks fell between two scrapes: left out)` : ''}`,
      `baseline: the tick period AUTOSCALER_TICK_MS = ${TICK_MS} ms, a constant (not measured)`,
    ];
    const constant = Array(rounds).fill(TICK_MS);
    const tickFigure = (metric, values) => ({
      id: `autoscaler.tick-${metric}`,
      label: `control-loop tick ${metric}, the size's endpoints each with a live worker`,
      unit: 'ms',
      better: 'lower',
      ours: values,
      baseline: constant,
      oursLabel: `one control-loop pass over every endpoint (${metric} of a round's ticks)`,
      baselineLabel: `the tick period AUTOSCALER_TICK_MS (${TICK_MS} ms, constant)`,
      notes: tickNotes,
    });
    return [
      tickFigure('p50', tick.p50),
      tickFigure('p99', tick.p99),
      {
        id: 'autoscaler.burst-decision',
        label: `burst → scale-up decision, one endpoint at zero workers among the size's`,
        unit: 'ms',
        better: 'lower',
        ours: decision.ours,
        baseline: decision.baseline,
        oursLabel: 'the autoscaler issues the worker pod.cmd.create (seen on NATS)',
        baselineLabel: `an external poller, GET /v2/{id}/health every ${TICK_MS} ms, sees inQueue > 0`,
        notes: [
          `${BURST} jobs per burst, each round at an endpoint of its own; median tick at this size ` +
            `${median(tick.all).toFixed(1)} ms (the decision waits for the tick after the burst, then for its pass)`,
        ],
      },
    ];
  },
};
