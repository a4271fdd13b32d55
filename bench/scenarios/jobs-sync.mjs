// Job round trip, sequential: one client sends a job and waits for its result, again and again.
//   ours      POST /v2/{endpoint}/runsync through the gateway (rate limiter on), the queue broker and an SDK echo
//             worker (HTTP long-poll take, done), answered COMPLETED;
//   baseline  POST to a bare Fastify route that does a bare NATS request-reply to a no-op responder process;
//   floor     the same round trip as the shape fixed in DESIGN.md requires it and no more, written by hand
//             (bench/lib/shape-floor.edge.mjs): JetStream-recorded commands, one owner statement per command with
//             its processed and outbox rows, a long-polling HTTP worker. Its ratio to the baseline is what the
//             shape costs; ours against it is what our implementation adds.
// Besides the latencies, each side's CPU per request: the CPU time its processes, Postgres's backends and the
// nats-server used over the round (not the client's), divided by its requests. Latency on two shared cores moves
// with whatever else the machine does; the CPU a request costs moves less (still by up to a fifth between runs).
import { latencySummary } from '../lib/stats.mjs';
import { bareFastifyNats, jobsEndpoint } from '../lib/fixtures.mjs';
import { natsTimeline } from '../lib/nats-timeline.mjs';
import { checkFloorRound, floorRecord, shapeFloor } from '../lib/shape-floor.mjs';
import { pidsNamed, withCpuPer } from '../lib/process-cpu.mjs';

/**
 * Runs `count` samples (timedSamples); answers their latency summary and the CPU per request of `roles` (role →
 * () => pids) and the servers (withCpuPer).
 */
function measured(count, fn, roles, timeline = null) {
  return withCpuPer(count, { ...roles, ...SERVERS }, async () =>
    latencySummary(await timedSamples(count, fn, timeline)),
  );
}

/** The servers both sides use: every Postgres process (the baseline's share is what idle apps poll) and NATS. */
const SERVERS = { postgres: () => pidsNamed('postgres'), nats: () => pidsNamed('nats-server') };

async function timedSamples(count, fn, timeline = null) {
  const samples = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await fn(i);
    const ended = performance.now();
    samples.push(ended - started);
    timeline?.sample(started, ended);
  }
  return samples;
}

async function postJson(url, headers, body) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const json = await response.json();
  if (response.status !== 200 || json.status !== 'COMPLETED') {
    throw new Error(`POST ${url}: HTTP ${response.status} ${JSON.stringify(json).slice(0, 300)}`);
  }
  return json;
}

export default {
  id: 'jobs-sync',
  title: 'job round trip, sequential',
  async setup(ctx) {
    const samples = ctx.quick ? 30 : 150;
    const floor = await shapeFloor(ctx, 'seq');
    return {
      settings: { samplesPerRound: samples, warmupSamples: ctx.quick ? 10 : 50 },
      samples,
      warmup: ctx.quick ? 10 : 50,
      endpoint: await jobsEndpoint(ctx),
      bare: await bareFastifyNats(ctx),
      floor,
      ctx,
      key: ctx.key,
      // The job path's apps (the endpoint's echo workers are added per round).
      jobPath: {
        gateway: () => [ctx.system.pid('gateway')],
        broker: () => [ctx.system.pid('queue-broker')],
      },
      // BENCH_TIMELINE=1: each round's NATS timeline of the /runsync side and of the floor's
      // (bench/lib/nats-timeline.mjs).
      timeline: natsTimeline(ctx),
      floorTimeline: natsTimeline(ctx, floor.root),
    };
  },
  sides: {
    runsync: {
      label:
        'POST /v2/{id}/runsync → SDK echo worker → COMPLETED (gateway with rate limiter, queue-broker, Postgres, JetStream)',
      async run(state, { warmup }) {
        const timeline = warmup ? null : state.timeline;
        await timeline?.start();
        const result = await measured(
          warmup ? state.warmup : state.samples,
          (n) =>
            postJson(
              `${state.endpoint.base}/runsync?wait=30000`,
              { authorization: state.key },
              { input: { n } },
            ),
          { ...state.jobPath, workers: () => state.endpoint.workerPids },
          timeline,
        );
        for (const line of (await timeline?.stop()) ?? []) console.log(`    ${line}`);
        return result;
      },
    },
    'fastify+nats': {
      label: 'bare Fastify route → bare NATS request-reply → no-op responder process',
      async run(state, { warmup }) {
        return measured(
          warmup ? state.warmup : state.samples,
          (n) => postJson(`${state.bare.url}/runsync`, {}, { input: { n } }),
          { bare: () => state.bare.pids },
        );
      },
    },
    floor: {
      label:
        "the shape by hand: Fastify edge → JetStream-recorded submit (carrying the poll's take) → owner statement with processed and outbox rows → HTTP long-poll worker → recorded done → owner statement → answer",
      async run(state, { warmup }) {
        const count = warmup ? state.warmup : state.samples;
        const timeline = warmup ? null : state.floorTimeline;
        const before = await floorRecord(state.ctx, state.floor);
        await timeline?.start();
        const result = await measured(
          count,
          (n) => postJson(`${state.floor.url}/runsync`, {}, { input: { n } }),
          { floor: () => state.floor.pids },
          timeline,
        );
        for (const line of (await timeline?.stop()) ?? []) console.log(`    floor ${line}`);
        // The floor did what it stands for: every job completed, each of its commands recorded and applied.
        checkFloorRound(before, await floorRecord(state.ctx, state.floor), count);
        return result;
      },
    },
  },
  comparisons: [
    {
      label: 'p50',
      unit: 'ms',
      better: 'lower',
      ours: ['runsync', 'p50'],
      baseline: ['fastify+nats', 'p50'],
    },
    {
      label: 'p99',
      unit: 'ms',
      better: 'lower',
      ours: ['runsync', 'p99'],
      baseline: ['fastify+nats', 'p99'],
    },
    {
      label: 'CPU per request',
      unit: 'ms',
      better: 'lower',
      ours: ['runsync', 'cpuMs'],
      baseline: ['fastify+nats', 'cpuMs'],
    },
    {
      label: 'p50, the shape by hand vs the same baseline (what the shape costs)',
      unit: 'ms',
      better: 'lower',
      ours: ['floor', 'p50'],
      baseline: ['fastify+nats', 'p50'],
    },
    {
      label: 'p99, the shape by hand vs the same baseline',
      unit: 'ms',
      better: 'lower',
      ours: ['floor', 'p99'],
      baseline: ['fastify+nats', 'p99'],
    },
    {
      label: 'CPU per request, the shape by hand vs the same baseline',
      unit: 'ms',
      better: 'lower',
      ours: ['floor', 'cpuMs'],
      baseline: ['fastify+nats', 'cpuMs'],
    },
    {
      label: 'p50, ours vs the shape by hand (what our implementation adds)',
      unit: 'ms',
      better: 'lower',
      ours: ['runsync', 'p50'],
      baseline: ['floor', 'p50'],
    },
  ],
  notes: (state) => [
    `${state.samples} sequential requests per round and side; p99 is the nearest-rank p99 of one round's samples`,
    "CPU per request: the side's processes, every Postgres process and the nats-server over the round, not the client's",
  ],
};
