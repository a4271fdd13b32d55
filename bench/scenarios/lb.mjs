// Load-balancing endpoints (docs/adr/0026, 0031): what the gateway's proxy adds to a request, on the example LB
// worker (gpucp/lb-worker, a real process of the local runtime), timed in µs by our own client
// (bench/lib/http-latency.mjs; autocannon counts whole ms, so a direct call read 0 and the ratio Infinity).
//   proxy     through the gateway, /lb/{endpoint}/...: API-key auth (cached), the per-user rate limiter (quotas
//             too large to refuse anything), the endpoint's record (cached ≤ 2 s), the least-outstanding pick,
//             undici to the worker, the response sent back;
//   direct    the same worker process called directly at the address pod-lifecycle announced for it.
// Three load shapes, each the same for both sides and measured in the same rounds (proxy, direct, proxy, ...):
//   8 connections on GET /slow?ms=10, a route that takes 10 ms as a small model's answer would: what the proxy
//   adds to a request that does work. Issue 20's line (proxy p99 ≤ 1.5× direct) is read here. Its rounds are
//   longer (WORK_SECONDS: ~5,600 samples a round, so the p99 is the 56th-slowest; ~700 in --quick), and
//   the p99 of every round's samples pooled is given in the notes, the same for both sides;
//   1 connection on GET /, one request after the other: the bare hop's cost (a trivial route answers in µs, so
//   the ratio is one loopback hop against two through a third process, which no proxy brings near 1.5×);
//   8 connections on GET / as fast as they go: throughput, and latency when the gateway is saturated.
import { createTemplate, saveEndpoint } from '../lib/api.mjs';
import { measureHttp } from '../lib/http-latency.mjs';
import { cpuSeconds } from '../lib/process-cpu.mjs';
import { quickRounds } from '../lib/rounds.mjs';
import { median, percentile } from '../lib/stats.mjs';

const LOADED_CONNECTIONS = 8;
/** How long the worker's working route takes: `GET /slow?ms=WORK_MS`. */
const WORK_MS = 10;
const WARMUP = { seconds: 0.5, workSeconds: 0.5 };

/**
 * One round of one side. `gatewayMetrics` (the proxy side): the gateway's CPU time per request on the 10 ms route
 * is measured too, a cost that other load on the machine does not inflate as it does the latencies.
 */
async function load(base, headers, { seconds, workSeconds }, pooled, gatewayMetrics) {
  const cpuBefore = gatewayMetrics ? await cpuSeconds(gatewayMetrics) : NaN;
  const working = await measureHttp({
    url: `${base}slow?ms=${WORK_MS}`,
    headers,
    connections: LOADED_CONNECTIONS,
    seconds: workSeconds,
  });
  const cpuUs = gatewayMetrics
    ? (((await cpuSeconds(gatewayMetrics)) - cpuBefore) * 1e6) / working.requests
    : undefined;
  pooled?.push(...working.samples);
  const one = await measureHttp({ url: base, headers, connections: 1, seconds });
  const loaded = await measureHttp({ url: base, headers, connections: LOADED_CONNECTIONS, seconds });
  return {
    workP50: working.p50,
    workP99: working.p99,
    p50: one.p50,
    p99: one.p99,
    loadedP50: loaded.p50,
    loadedP99: loaded.p99,
    reqPerSec: loaded.reqPerSec,
    ...(cpuUs === undefined ? {} : { workGatewayCpuUs: cpuUs }),
  };
}

/** The worker's address, from pod-lifecycle's announcements (`<prefix>.lb.worker-state`) once it is ready. */
async function readyWorkerUrl(ctx, endpointId, timeoutMs = 60_000) {
  const sub = ctx.nc.subscribe(`${ctx.natsPrefix}.lb.worker-state`);
  const timer = setTimeout(() => sub.unsubscribe(), timeoutMs);
  try {
    for await (const message of sub) {
      const announcement = message.json();
      if (announcement.endpointId === endpointId && announcement.state === 'ready') return announcement.url;
    }
    throw new Error(`lb setup: no worker of endpoint ${endpointId} announced ready within ${timeoutMs} ms`);
  } finally {
    clearTimeout(timer);
    sub.unsubscribe();
  }
}

export default {
  id: 'lb',
  title: 'lb: an LB worker, through the gateway vs direct',
  rounds: (ctx) => quickRounds(ctx, 3),
  async setup(ctx) {
    const seconds = ctx.quick ? 0.5 : 3;
    const workSeconds = ctx.quick ? 1 : 8;
    const template = await createTemplate(ctx.api, 'bench-lb', 'gpucp/lb-worker');
    const id = await saveEndpoint(ctx.api, {
      name: 'bench-lb',
      templateId: template.id,
      type: 'LB',
      workersMin: 1,
      workersMax: 1,
      idleTimeout: 3600,
    });
    const workerUrl = await readyWorkerUrl(ctx, id);
    const headers = { authorization: `Bearer ${ctx.key}` };
    const proxied = `${ctx.system.url('gateway')}/lb/${id}/`;
    // Every gateway replica learnt of the worker too: the first request through it answers.
    const first = await fetch(proxied, { headers });
    await first.arrayBuffer();
    if (first.status !== 200) throw new Error(`lb setup: GET ${proxied} answered ${first.status}`);
    return {
      api: ctx.api,
      endpoint: { id, templateId: template.id },
      durations: { seconds, workSeconds },
      headers,
      pooled: { proxy: [], direct: [] },
      urls: { proxied, direct: `${workerUrl}/` },
      gatewayMetrics: ctx.system.metricsUrl('gateway'),
      settings: {
        connections: [1, LOADED_CONNECTIONS],
        workMs: WORK_MS,
        secondsPerRound: seconds,
        workSecondsPerRound: workSeconds,
      },
    };
  },
  sides: {
    proxy: {
      label:
        'gateway /lb/{id}/…: auth (cached), rate limiter on, least-outstanding pick, undici to the worker',
      run: (state, { warmup }) =>
        load(
          state.urls.proxied,
          state.headers,
          warmup ? WARMUP : state.durations,
          warmup ? null : state.pooled.proxy,
          state.gatewayMetrics,
        ),
    },
    direct: {
      label: 'the same worker process at its own address (no gateway)',
      run: (state, { warmup }) =>
        load(state.urls.direct, {}, warmup ? WARMUP : state.durations, warmup ? null : state.pooled.direct),
    },
  },
  comparisons: [
    {
      label: `p50 latency, ${LOADED_CONNECTIONS} connections on a ${WORK_MS} ms route, proxy vs direct`,
      unit: 'ms',
      better: 'lower',
      ours: ['proxy', 'workP50'],
      baseline: ['direct', 'workP50'],
    },
    {
      label: `p99 latency, ${LOADED_CONNECTIONS} connections on a ${WORK_MS} ms route, proxy vs direct (issue 20: ≤ 1.5×)`,
      unit: 'ms',
      better: 'lower',
      ours: ['proxy', 'workP99'],
      baseline: ['direct', 'workP99'],
    },
    {
      label: 'p50 latency, 1 connection on a trivial route, proxy vs direct (the bare hop)',
      unit: 'ms',
      better: 'lower',
      ours: ['proxy', 'p50'],
      baseline: ['direct', 'p50'],
    },
    {
      label: 'p99 latency, 1 connection on a trivial route, proxy vs direct (the bare hop)',
      unit: 'ms',
      better: 'lower',
      ours: ['proxy', 'p99'],
      baseline: ['direct', 'p99'],
    },
    {
      label: `p50 latency, ${LOADED_CONNECTIONS} connections flat out on a trivial route, proxy vs direct`,
      unit: 'ms',
      better: 'lower',
      ours: ['proxy', 'loadedP50'],
      baseline: ['direct', 'loadedP50'],
    },
    {
      label: `p99 latency, ${LOADED_CONNECTIONS} connections flat out on a trivial route, proxy vs direct`,
      unit: 'ms',
      better: 'lower',
      ours: ['proxy', 'loadedP99'],
      baseline: ['direct', 'loadedP99'],
    },
    {
      label: `req/s, ${LOADED_CONNECTIONS} connections on a trivial route, proxy vs direct`,
      unit: 'req/s',
      better: 'higher',
      ours: ['proxy', 'reqPerSec'],
      baseline: ['direct', 'reqPerSec'],
    },
  ],
  async teardown(state) {
    // Its worker goes (workersMax 0), so later scenarios share the machine with nothing of this one.
    await saveEndpoint(state.api, {
      id: state.endpoint.id,
      name: 'bench-lb',
      templateId: state.endpoint.templateId,
      type: 'LB',
      workersMin: 0,
      workersMax: 0,
    }).catch(() => undefined);
  },
  notes: (state, raw) => {
    const { proxy, direct } = state.pooled;
    const cpu = raw.proxy.workGatewayCpuUs ?? [];
    const p99 = (samples) => percentile(samples, 99);
    return [
      `our undici client in the harness process (keep-alive, no pipelining, each request timed with process.hrtime.bigint()); per round and side: ${LOADED_CONNECTIONS} connections on GET /slow?ms=${WORK_MS} for ${state.durations.workSeconds} s, then 1 connection and ${LOADED_CONNECTIONS} on GET / for ${state.durations.seconds} s each; one worker (workersMin = workersMax = 1)`,
      `${WORK_MS} ms route, every round's samples pooled: p99 proxy ${p99(proxy).toFixed(2)} ms (${proxy.length} requests) vs direct ${p99(direct).toFixed(2)} ms (${direct.length}), ${(p99(proxy) / p99(direct)).toFixed(2)}×; p50 ${percentile(proxy, 50).toFixed(2)} vs ${percentile(direct, 50).toFixed(2)} ms`,
      `gateway CPU per proxied request on the ${WORK_MS} ms route (user + system, its /metrics): median ${median(cpu).toFixed(0)} µs [${Math.min(...cpu).toFixed(0)}–${Math.max(...cpu).toFixed(0)}] over the rounds`,
    ];
  },
};
