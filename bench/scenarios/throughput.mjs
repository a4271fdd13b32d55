// Sustained throughput: a batch of jobs submitted by 32 concurrent clients, drained by no-op workers.
//   ours      POST /v2/{endpoint}/run ×N (gateway with rate limiter, queue broker, JetStream, Postgres), SDK echo
//             workers; done when the broker has every job COMPLETED;
//   baseline  BullMQ on the local Redis: queue.add ×N from 32 concurrent callers, no-op worker processes (as many
//             and as concurrent as ours); done when every job is completed.
// jobs/s = N / (last job finished − first submit started); p99 = of each job's submit start → finished.
import { percentile } from '../lib/stats.mjs';
import { bullmq, jobsEndpoint } from '../lib/fixtures.mjs';

const SUBMITTERS = 32;
const DRAIN_TIMEOUT_MS = 120_000;

async function pool(count, concurrency, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await fn(next++);
    }),
  );
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function result(count, submittedAt, finishedAt) {
  const latencies = [...submittedAt.keys()].map((id) => finishedAt.get(id) - submittedAt.get(id));
  const first = Math.min(...submittedAt.values());
  const last = Math.max(...finishedAt.values());
  return { jobsPerSec: (count * 1000) / (last - first), p99: percentile(latencies, 99) };
}

export default {
  id: 'throughput',
  title: 'sustained throughput',
  async setup(ctx) {
    const jobs = ctx.quick ? 100 : 400;
    return {
      settings: { jobsPerRound: jobs, submitters: SUBMITTERS },
      jobs,
      endpoint: await jobsEndpoint(ctx),
      bull: await bullmq(ctx),
      key: ctx.key,
      sql: ctx.sql,
    };
  },
  sides: {
    run: {
      label: 'POST /v2/{id}/run from 32 concurrent clients, SDK echo workers, until all COMPLETED',
      async run(state, { warmup }) {
        const count = warmup ? 50 : state.jobs;
        const submittedAt = new Map();
        await pool(count, SUBMITTERS, async (n) => {
          const started = Date.now();
          const response = await fetch(`${state.endpoint.base}/run`, {
            method: 'POST',
            headers: { authorization: state.key, 'content-type': 'application/json' },
            body: JSON.stringify({ input: { n } }),
          });
          const json = await response.json();
          if (response.status !== 200)
            throw new Error(`/run: HTTP ${response.status} ${JSON.stringify(json)}`);
          submittedAt.set(json.id, started);
        });
        const ids = [...submittedAt.keys()];
        const deadline = performance.now() + DRAIN_TIMEOUT_MS;
        for (;;) {
          if (performance.now() > deadline)
            throw new Error(`the jobs were not all finished within ${DRAIN_TIMEOUT_MS / 1000} s`);
          const { rows } = await state.sql.query(
            `SELECT id, status, (extract(epoch FROM finished_at) * 1000)::float8 AS finished
               FROM queue_broker.jobs WHERE id = ANY($1::text[]) AND finished_at IS NOT NULL`,
            [ids],
          );
          const failed = rows.find((row) => row.status !== 'COMPLETED');
          if (failed) throw new Error(`job ${failed.id} ended ${failed.status}`);
          if (rows.length === ids.length) {
            return result(count, submittedAt, new Map(rows.map((row) => [row.id, row.finished])));
          }
          await sleep(100);
        }
      },
    },
    bullmq: {
      label:
        'BullMQ (local Redis): queue.add from 32 concurrent callers, no-op worker processes, until all completed',
      async run(state, { warmup }) {
        const { queue } = state.bull;
        const count = warmup ? 50 : state.jobs;
        await queue.clean(0, 0, 'completed'); // 0: no limit
        const submittedAt = new Map();
        await pool(count, SUBMITTERS, async (n) => {
          const started = Date.now();
          const job = await queue.add('job', { input: { n } });
          submittedAt.set(job.id, started);
        });
        const deadline = performance.now() + DRAIN_TIMEOUT_MS;
        for (;;) {
          if (performance.now() > deadline)
            throw new Error(`BullMQ did not finish the jobs within ${DRAIN_TIMEOUT_MS / 1000} s`);
          const counts = await queue.getJobCounts('completed', 'failed');
          if (counts.failed > 0) throw new Error(`${counts.failed} BullMQ job(s) failed`);
          if (counts.completed >= count) break;
          await sleep(100);
        }
        const jobs = await queue.getJobs(['completed'], 0, -1);
        const finishedAt = new Map(
          jobs.filter((job) => submittedAt.has(job.id)).map((job) => [job.id, job.finishedOn]),
        );
        if (finishedAt.size !== count)
          throw new Error(`BullMQ: ${finishedAt.size} of ${count} jobs found completed`);
        return result(count, submittedAt, finishedAt);
      },
    },
  },
  comparisons: [
    {
      label: 'jobs/s',
      unit: 'jobs/s',
      better: 'higher',
      ours: ['run', 'jobsPerSec'],
      baseline: ['bullmq', 'jobsPerSec'],
    },
    {
      label: 'p99 submit → finished',
      unit: 'ms',
      better: 'lower',
      ours: ['run', 'p99'],
      baseline: ['bullmq', 'p99'],
    },
  ],
  notes: (state) => [`${state.jobs} jobs per round and side, submitted by ${SUBMITTERS} concurrent clients`],
};
