// Load-balancing endpoints (docs/adr/0026, 0031): what the gateway's proxy adds to a request, GET / of the example
// LB worker (gpucp/lb-worker, a real process of the local runtime), timed in µs by our own client
// (bench/lib/http-latency.mjs; autocannon counts whole ms, so a direct call read 0 and the ratio Infinity).
//   proxy     GET /lb/{endpoint}/ through the gateway: API-key auth (cached), the per-user rate limiter (quotas too
//             large to refuse anything), the endpoint's record (cached ≤ 2 s), the least-outstanding pick, undici
//             to the worker, the response streamed back;
//   direct    the same worker process called directly at the address pod-lifecycle announced for it.
// Two load shapes, each the same for both sides and measured in the same rounds (proxy, direct, proxy, ...):
//   1 connection, one request after the other: the latency a request pays for the extra hop (the figure:
//   proxy p99 ≤ 1.5× direct), with no queueing in it;
//   8 connections as fast as they go: throughput, and the latency when the gateway is saturated (queueing);
//   8 connections on GET /slow?ms=10, a route that takes 10 ms as a small model's answer would: what the proxy adds
//   to a request that does work (a trivial route measures the hop alone, which no proxy can bring near 1.5x).
import { createTemplate, saveEndpoint } from '../lib/api.mjs';
import { measureHttp } from '../lib/http-latency.mjs';

const LOADED_CONNECTIONS = 8;
/** How long the worker's working route takes: `GET /slow?ms=WORK_MS`. */
const WORK_MS = 10;

async function load(base, headers, seconds) {
  const one = await measureHttp({ url: base, headers, connections: 1, seconds });
  const loaded = await measureHttp({ url: base, headers, connections: LOADED_CONNECTIONS, seconds });
  const working = await measureHttp({
    url: `${base}slow?ms=${WORK_MS}`,
    headers,
    connections: LOADED_CONNECTIONS,
    seconds,
  });
  return {
    p50: one.p50,
    p99: one.p99,
    loadedP50: loaded.p50,
    loadedP99: loaded.p99,
    reqPerSec: loaded.reqPerSec,
    workP50: working.p50,
    workP99: working.p99,
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
  async setup(ctx) {
    const seconds = ctx.quick ? 1 : 3;
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
      seconds,
      headers,
      urls: { proxied, direct: `${workerUrl}/` },
      settings: { connections: [1, LOADED_CONNECTIONS], workMs: WORK_MS, secondsPerRound: seconds },
    };
  },
  sides: {
    proxy: {
      label:
        'gateway GET /lb/{id}/: auth (cached), rate limiter on, least-outstanding pick, undici to the worker',
      run: (state, { warmup }) => load(state.urls.proxied, state.headers, warmup ? 0.5 : state.seconds),
    },
    direct: {
      label: 'the same worker process, GET / at its own address (no gateway)',
      run: (state, { warmup }) => load(state.urls.direct, {}, warmup ? 0.5 : state.seconds),
    },
  },
  comparisons: [
    {
      label: 'p50 latency, 1 connection, proxy vs direct',
      unit: 'ms',
      better: 'lower',
      ours: ['proxy', 'p50'],
      baseline: ['direct', 'p50'],
    },
    {
      label: 'p99 latency, 1 connection, proxy vs direct (issue 20: ≤ 1.5×)',
      unit: 'ms',
      better: 'lower',
      ours: ['proxy', 'p99'],
      baseline: ['direct', 'p99'],
    },
    {
      label: `p50 latency, ${LOADED_CONNECTIONS} connections flat out, proxy vs direct`,
      unit: 'ms',
      better: 'lower',
      ours: ['proxy', 'loadedP50'],
      baseline: ['direct', 'loadedP50'],
    },
    {
      label: `p99 latency, ${LOADED_CONNECTIONS} connections flat out, proxy vs direct`,
      unit: 'ms',
      better: 'lower',
      ours: ['proxy', 'loadedP99'],
      baseline: ['direct', 'loadedP99'],
    },
    {
      label: `p50 latency, ${LOADED_CONNECTIONS} connections on a ${WORK_MS} ms route, proxy vs direct`,
      unit: 'ms',
      better: 'lower',
      ours: ['proxy', 'workP50'],
      baseline: ['direct', 'workP50'],
    },
    {
      label: `p99 latency, ${LOADED_CONNECTIONS} connections on a ${WORK_MS} ms route, proxy vs direct`,
      unit: 'ms',
      better: 'lower',
      ours: ['proxy', 'workP99'],
      baseline: ['direct', 'workP99'],
    },
    {
      label: `req/s, ${LOADED_CONNECTIONS} connections, proxy vs direct`,
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
  notes: (state) => [
    `our undici client in the harness process (keep-alive, no pipelining, each request timed with process.hrtime.bigint()); 1 connection then ${LOADED_CONNECTIONS}, then ${LOADED_CONNECTIONS} on GET /slow?ms=${WORK_MS}, ${state.seconds} s each per round and side; one worker (workersMin = workersMax = 1)`,
  ],
};
