// Job round trip, sequential: one client sends a job and waits for its result, again and again.
//   ours      POST /v2/{endpoint}/runsync through the gateway (rate limiter on), the queue broker and an SDK echo
//             worker (HTTP long-poll take, done), answered COMPLETED;
//   baseline  POST to a bare Fastify route that does a bare NATS request-reply to a no-op responder process.
import { latencySummary } from '../lib/stats.mjs';
import { bareFastifyNats, jobsEndpoint } from '../lib/fixtures.mjs';
import { natsTimeline } from '../lib/nats-timeline.mjs';

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
    return {
      settings: { samplesPerRound: samples, warmupSamples: ctx.quick ? 10 : 50 },
      samples,
      warmup: ctx.quick ? 10 : 50,
      endpoint: await jobsEndpoint(ctx),
      bare: await bareFastifyNats(ctx),
      key: ctx.key,
      // BENCH_TIMELINE=1: each round's NATS timeline of the /runsync side (bench/lib/nats-timeline.mjs).
      timeline: natsTimeline(ctx),
    };
  },
  sides: {
    runsync: {
      label:
        'POST /v2/{id}/runsync → SDK echo worker → COMPLETED (gateway with rate limiter, queue-broker, Postgres, JetStream)',
      async run(state, { warmup }) {
        const timeline = warmup ? null : state.timeline;
        await timeline?.start();
        const samples = await timedSamples(
          warmup ? state.warmup : state.samples,
          (n) =>
            postJson(
              `${state.endpoint.base}/runsync?wait=30000`,
              { authorization: state.key },
              { input: { n } },
            ),
          timeline,
        );
        for (const line of (await timeline?.stop()) ?? []) console.log(`    ${line}`);
        return latencySummary(samples);
      },
    },
    'fastify+nats': {
      label: 'bare Fastify route → bare NATS request-reply → no-op responder process',
      async run(state, { warmup }) {
        const samples = await timedSamples(warmup ? state.warmup : state.samples, (n) =>
          postJson(`${state.bare}/runsync`, {}, { input: { n } }),
        );
        return latencySummary(samples);
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
  ],
  notes: (state) => [
    `${state.samples} sequential requests per round and side; p99 is the nearest-rank p99 of one round's samples`,
  ],
};
