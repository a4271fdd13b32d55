// The HTTP edge: GET /v2/{endpoint}/status/{job} of a finished job, as fast as 8 connections go (autocannon).
//   ours        the gateway as deployed: API-key auth (cached), the per-user rate limiter (counted in memory,
//               flushed to Postgres; quotas too large to refuse anything), the finished job served from the
//               gateway's read model (only the first read goes over NATS to the queue broker);
//   baselines   a bare Nest app on the same Fastify adapter answering a fixed job from the same route (no
//               modules); and the same gateway build with RATE_LIMITS_ENABLED=false (limiter on vs off).
import autocannon from 'autocannon';
import { bareNest, jobsEndpoint } from '../lib/fixtures.mjs';
import { cpuSeconds } from '../lib/process-cpu.mjs';
import { quickRounds } from '../lib/rounds.mjs';

const CONNECTIONS = 8;

async function load(url, headers, seconds, counted) {
  const result = await autocannon({ url, headers, connections: CONNECTIONS, duration: seconds });
  if (result.errors || result.timeouts || result.non2xx) {
    throw new Error(
      `autocannon ${url}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx answers`,
    );
  }
  if (counted) counted.requests += result['2xx'];
  return { reqPerSec: result['2xx'] / (result.duration || seconds), p99: result.latency.p99 };
}

/** Mean duration (ms) and number of the limiter's store statements, from the gateway's own histogram. */
async function storeStatements(metricsUrl) {
  const text = await (await fetch(metricsUrl)).text();
  const value = (name) =>
    Number(/\s(\S+)$/.exec(text.split('\n').find((line) => line.startsWith(name)) ?? ' 0')[1]);
  const count = value('gateway_rate_limit_store_seconds_count');
  return { count, ms: count ? (value('gateway_rate_limit_store_seconds_sum') / count) * 1000 : null };
}

async function rateLimitHeader(url, key) {
  const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`GET ${url}: HTTP ${response.status}`);
  return response.headers.get('ratelimit');
}

export default {
  id: 'edge',
  title: 'edge: GET /status/{id}',
  rounds: (ctx) => quickRounds(ctx, 3),
  async setup(ctx) {
    const seconds = ctx.quick ? 1 : 3;
    const endpoint = await jobsEndpoint(ctx);
    const response = await fetch(`${endpoint.base}/runsync?wait=30000`, {
      method: 'POST',
      headers: { authorization: ctx.key, 'content-type': 'application/json' },
      body: JSON.stringify({ input: { edge: true } }),
    });
    const job = await response.json();
    if (job.status !== 'COMPLETED') throw new Error(`edge setup: job ${JSON.stringify(job)}`);
    const path = `/v2/${endpoint.id}/status/${job.id}`;
    // A /runsync result is kept briefly; a read no longer extends it (only ?ttl= does): keep it for the run.
    const kept = await fetch(`${ctx.system.url('gateway')}${path}?ttl=3600000`, {
      headers: { authorization: ctx.key },
    });
    await kept.arrayBuffer();
    if (kept.status !== 200) throw new Error(`edge setup: GET ${path}?ttl=3600000 answered ${kept.status}`);
    const urls = {
      on: `${ctx.system.url('gateway')}${path}`,
      off: `${ctx.system.url('gateway-nolimit')}${path}`,
      nest: `${await bareNest()}${path}`,
    };
    // The two gateways differ only in the limiter: check that they do.
    if (!(await rateLimitHeader(urls.on, ctx.key))) {
      throw new Error('the limiter-on gateway sent no RateLimit header');
    }
    if (await rateLimitHeader(urls.off, ctx.key)) {
      throw new Error('the limiter-off gateway sent a RateLimit header');
    }
    const cpu = {
      on: { url: ctx.system.metricsUrl('gateway'), requests: 0 },
      off: { url: ctx.system.metricsUrl('gateway-nolimit'), requests: 0 },
    };
    for (const side of Object.values(cpu)) side.before = await cpuSeconds(side.url);
    return {
      cpu,
      gatewayMetrics: ctx.system.metricsUrl('gateway'),
      settings: { connections: CONNECTIONS, secondsPerRound: seconds },
      seconds,
      urls,
      headers: { authorization: `Bearer ${ctx.key}` },
    };
  },
  sides: {
    'limiter on': {
      label:
        'gateway GET /v2/{id}/status/{job}: auth (cached), rate limiter on, the finished job from the read model',
      run: (state, { warmup }) =>
        load(state.urls.on, state.headers, warmup ? 0.5 : state.seconds, state.cpu.on),
    },
    'bare nest': {
      label: 'bare Nest 12 app, Fastify adapter, same route answering a fixed job (no modules)',
      run: (state, { warmup }) => load(state.urls.nest, state.headers, warmup ? 0.5 : state.seconds),
    },
    'limiter off': {
      label: 'the same gateway with RATE_LIMITS_ENABLED=false',
      run: (state, { warmup }) =>
        load(state.urls.off, state.headers, warmup ? 0.5 : state.seconds, state.cpu.off),
    },
  },
  comparisons: [
    {
      label: 'req/s vs bare Nest',
      unit: 'req/s',
      better: 'higher',
      ours: ['limiter on', 'reqPerSec'],
      baseline: ['bare nest', 'reqPerSec'],
    },
    {
      label: 'req/s, limiter on vs off',
      unit: 'req/s',
      better: 'higher',
      ours: ['limiter on', 'reqPerSec'],
      baseline: ['limiter off', 'reqPerSec'],
    },
  ],
  async teardown(state) {
    state.store = await storeStatements(state.gatewayMetrics).catch(() => null);
    for (const side of Object.values(state.cpu)) {
      const used = (await cpuSeconds(side.url).catch(() => NaN)) - side.before;
      side.usPerRequest = side.requests ? (used / side.requests) * 1e6 : NaN;
    }
  },
  notes: (state) => [
    `gateway CPU per request (process_cpu_seconds_total / requests answered): limiter on ${state.cpu.on.usPerRequest.toFixed(0)} µs (it also serves the bench worker's long polls), limiter off ${state.cpu.off.usPerRequest.toFixed(0)} µs`,
    `autocannon, ${CONNECTIONS} connections, ${state.seconds} s per round and side, in the harness process`,
    `the limiter's store statements (exact hits and batched flushes, gateway_rate_limit_store_seconds): ${state.store?.count ?? '?'} over the run so far, ${state.store?.ms?.toFixed(2) ?? '?'} ms on average`,
  ],
};
