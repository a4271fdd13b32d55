// Job round trip through the queue: submit, then wait for completion, one job at a time.
//   ours      POST /v2/{endpoint}/run, then GET /v2/{endpoint}/status-sync/{job}?wait=30000 (the /status route that
//             long-polls: a /status poll loop would add its poll interval) until COMPLETED; SDK echo workers;
//   baseline  BullMQ on the local Redis: queue.add, then job.waitUntilFinished (QueueEvents); no-op workers in
//             processes of their own, as many and as concurrent as ours.
import { latencySummary } from '../lib/stats.mjs';
import { jobRequest as request } from '../lib/burst.mjs';
import { bullmq, jobsEndpoint } from '../lib/fixtures.mjs';

async function timedSamples(count, fn) {
  const samples = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await fn(i);
    samples.push(performance.now() - started);
  }
  return samples;
}

export default {
  id: 'jobs-queue',
  title: 'job round trip through the queue',
  async setup(ctx) {
    const samples = ctx.quick ? 30 : 150;
    return {
      settings: { samplesPerRound: samples, warmupSamples: ctx.quick ? 10 : 50 },
      samples,
      warmup: ctx.quick ? 10 : 50,
      endpoint: await jobsEndpoint(ctx),
      bull: await bullmq(ctx),
      key: ctx.key,
    };
  },
  sides: {
    'run+status': {
      label: 'POST /v2/{id}/run, then GET /v2/{id}/status-sync/{job} until COMPLETED (SDK echo workers)',
      async run(state, { warmup }) {
        const samples = await timedSamples(warmup ? state.warmup : state.samples, async (n) => {
          const { id } = await request('POST', `${state.endpoint.base}/run`, state.key, { input: { n } });
          const deadline = performance.now() + 60_000;
          for (;;) {
            if (performance.now() > deadline) throw new Error(`job ${id} did not complete within 60 s`);
            const job = await request(
              'GET',
              `${state.endpoint.base}/status-sync/${id}?wait=30000`,
              state.key,
            );
            if (job.status === 'COMPLETED') return;
            if (!['IN_QUEUE', 'IN_PROGRESS'].includes(job.status)) {
              throw new Error(`job ${id} ended ${job.status}`);
            }
          }
        });
        return latencySummary(samples);
      },
    },
    bullmq: {
      label: 'BullMQ (local Redis): queue.add, then job.waitUntilFinished (no-op worker processes)',
      async run(state, { warmup }) {
        const { queue, events } = state.bull;
        const samples = await timedSamples(warmup ? state.warmup : state.samples, async (n) => {
          const job = await queue.add('job', { input: { n } }, { removeOnComplete: 1000 });
          await job.waitUntilFinished(events, 30_000);
        });
        return latencySummary(samples);
      },
    },
  },
  comparisons: [
    { label: 'p50', unit: 'ms', better: 'lower', ours: ['run+status', 'p50'], baseline: ['bullmq', 'p50'] },
    { label: 'p99', unit: 'ms', better: 'lower', ours: ['run+status', 'p99'], baseline: ['bullmq', 'p99'] },
  ],
  notes: (state) => [`${state.samples} jobs one after another per round and side`],
};
