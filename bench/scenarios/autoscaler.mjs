// The autoscaler, from zero workers: a burst of 4 jobs (POST /run) arrives at an endpoint with no worker running.
//   first job of a burst → first scale-up decision:
//     ours      the autoscaler's control loop (AUTOSCALER_TICK_MS, default 1000) issuing the worker's
//               pod.cmd.create, seen on NATS by the harness;
//     baseline  the floor of any level-triggered loop at the same tick: an external poller that runs all along,
//               GET /v2/{id}/health every AUTOSCALER_TICK_MS, and "decides" on its first answer with inQueue > 0.
//               Both have a tick phase that is random with respect to the burst: the difference is what the
//               autoscaler adds to the wait for its tick.
//   zero workers → first completion (burst start → the first job COMPLETED, through /status-sync):
//     ours      FLASHBOOT on: the stopped worker pod is resumed (pod.cmd.start);
//     baseline  FLASHBOOT off: a new worker pod is created (pod.cmd.create).
//   scale-up decision → first completion: the same, from the decision on (without the wait for the tick, which
//   dominates the figure above and is alike for both).
// Workers are the SDK echo worker run by pod-lifecycle's local runtime (gpucp/echo-worker: a Node process, so
// a resume and a create both spawn one; a real runtime's image pull and container start are not in these
// figures). Endpoints: workersMax 1, idleTimeout 1 s; before each measurement both are back at zero.
import { endpointPods, saveEndpoint } from '../lib/api.mjs';
import { echoTemplate } from '../lib/fixtures.mjs';
import { jobRequest, sleep, startPoller, until, within } from '../lib/burst.mjs';
import { quickRounds } from '../lib/rounds.mjs';

const BURST = 4;
const TICK_MS = 1000; // endpoint-autoscaler's AUTOSCALER_TICK_MS default, which the system runs with
const TIMEOUT_MS = 60_000;

/** Zero workers running: with FLASHBOOT, its worker stopped (kept for a resume); without, no worker at all. */
async function isIdle(api, endpoint) {
  const pods = await endpointPods(api, endpoint.id);
  if (!endpoint.flashBoot) return pods.length === 0;
  // Before its first burst (the warm-up round) it has no worker at all.
  return pods.every((p) => p.desiredStatus === 'EXITED' && p.status === 'EXITED');
}

async function completed(base, key, id) {
  const deadline = performance.now() + TIMEOUT_MS;
  while (performance.now() < deadline) {
    const job = await jobRequest('GET', `${base}/status-sync/${id}?wait=60000`, key);
    if (job.status === 'COMPLETED') return performance.now();
    if (!['IN_QUEUE', 'IN_PROGRESS'].includes(job.status)) throw new Error(`job ${id} ended ${job.status}`);
  }
  throw new Error(`job ${id} did not complete within ${TIMEOUT_MS / 1000} s`);
}

/** One burst at an idle endpoint: time to the scale-up command, to the poller's sighting, to the first result. */
async function burst(state, endpoint, { poll }) {
  const { api } = state;
  await until('both endpoints to be at zero workers', async () =>
    (await Promise.all(state.endpoints.map((e) => isIdle(api, e)))).every(Boolean),
  );
  const stopped = new Set((await endpointPods(api, endpoint.id)).map((p) => p.id));
  // Idleness is noticed just after the tick that stopped the last worker: without a random pause the burst
  // would always land at the same point of the autoscaler's tick.
  await sleep(Math.random() * TICK_MS);
  const base = `${state.gateway}/v2/${endpoint.id}`;
  const polled = poll ? state.poller.next() : null;
  const started = performance.now();
  const decided = new Promise((resolve) => {
    state.onCommand = (command) => {
      const ours =
        (command.subject.endsWith('.pod.cmd.create') && command.text.includes(endpoint.id)) ||
        (command.subject.endsWith('.pod.cmd.start') && stopped.has(JSON.parse(command.text).payload?.podId));
      if (ours && command.at >= started) resolve(command.at);
    };
  });
  const ids = await Promise.all(
    Array.from({ length: BURST }, (_, n) =>
      jobRequest('POST', `${base}/run`, state.key, { input: { n } }).then((job) => job.id),
    ),
  );
  try {
    const all = ids.map((id) => completed(base, state.key, id));
    const firstCompleted = await within(TIMEOUT_MS, 'the first job to complete', Promise.race(all));
    const decisionAt = await within(5000, `a scale-up command for ${endpoint.id} on NATS`, decided);
    await within(TIMEOUT_MS, 'every job of the burst to complete', Promise.all(all));
    const result = {
      decision: decisionAt - started,
      firstCompletion: firstCompleted - started,
      afterDecision: firstCompleted - decisionAt,
    };
    if (polled) result.poller = (await within(TIMEOUT_MS, 'the poller to see the burst', polled)) - started;
    return result;
  } finally {
    state.onCommand = null;
  }
}

export default {
  id: 'autoscaler',
  title: 'autoscaler',
  rounds: (ctx) => quickRounds(ctx, 3),
  async setup(ctx) {
    const templateId = await echoTemplate(ctx);
    const options = { templateId, workersMin: 0, workersMax: 1, idleTimeout: 1 };
    const endpoints = [
      { id: await saveEndpoint(ctx.api, { ...options, name: 'bench-flashboot-off' }), flashBoot: false },
      {
        id: await saveEndpoint(ctx.api, { ...options, name: 'bench-flashboot-on', flashBoot: true }),
        flashBoot: true,
      },
    ];
    const state = {
      settings: { burst: BURST, tickMs: TICK_MS, idleTimeoutS: 1, workersMax: 1 },
      api: ctx.api,
      key: ctx.key,
      gateway: ctx.system.url('gateway'),
      endpoints,
      onCommand: null,
    };
    const prefix = ctx.natsPrefix;
    state.subscription = ctx.nc.subscribe(`${prefix}.pod.cmd.*`, {
      callback: (error, msg) => {
        if (!error && state.onCommand) {
          state.onCommand({ subject: msg.subject, text: msg.string(), at: performance.now() });
        }
      },
    });
    state.poller = startPoller(`${state.gateway}/v2/${endpoints[0].id}`, ctx.key, TICK_MS);
    return state;
  },
  async teardown(state) {
    state.subscription.unsubscribe();
    await state.poller.stop();
  },
  sides: {
    'flashboot off': {
      label:
        'autoscaler (FLASHBOOT off): burst → pod.cmd.create on NATS; burst → first COMPLETED (a new worker pod)',
      // The other side's warm-up (creating the worker FLASHBOOT will resume) runs the same code paths.
      warmup: false,
      run: (state) => burst(state, state.endpoints[0], { poll: true }),
    },
    'flashboot on': {
      label: 'autoscaler (FLASHBOOT on): burst → first COMPLETED (the stopped worker pod resumed)',
      run: (state) => burst(state, state.endpoints[1], { poll: false }),
    },
  },
  comparisons: [
    {
      label: 'burst → scale-up decision',
      unit: 'ms',
      better: 'lower',
      ours: ['flashboot off', 'decision'],
      baseline: ['flashboot off', 'poller'],
      oursLabel: 'decision: the autoscaler issues the worker pod.cmd.create (seen on NATS)',
      baselineLabel: `decision: an external poller, GET /v2/{id}/health every ${TICK_MS} ms (the same tick), sees inQueue > 0`,
    },
    {
      label: 'zero workers → first completion',
      unit: 'ms',
      better: 'lower',
      ours: ['flashboot on', 'firstCompletion'],
      baseline: ['flashboot off', 'firstCompletion'],
      oursLabel: 'first completion with FLASHBOOT on (the stopped worker pod is resumed)',
      baselineLabel: 'first completion with FLASHBOOT off (a new worker pod is created)',
    },
    {
      label: 'scale-up decision → first completion',
      unit: 'ms',
      better: 'lower',
      ours: ['flashboot on', 'afterDecision'],
      baseline: ['flashboot off', 'afterDecision'],
      oursLabel: 'FLASHBOOT on: from the resume command (pod.cmd.start) to the first COMPLETED',
      baselineLabel: 'FLASHBOOT off: from the create command (pod.cmd.create) to the first COMPLETED',
    },
  ],
  notes: () => [
    `decision: the autoscaler and a free-running GET /health poller (every ${TICK_MS} ms, the autoscaler's tick) watch the same bursts; both tick phases are random with respect to the burst`,
    'workers are local-runtime Node processes (gpucp/echo-worker): resume and create both spawn a process, so FLASHBOOT saves only the control-plane work here, not an image pull',
  ],
};
