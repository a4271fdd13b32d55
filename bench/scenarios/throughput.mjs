// Sustained throughput: a batch of jobs submitted by 32 concurrent clients, drained by no-op workers.
//   ours      POST /v2/{endpoint}/run ×N (gateway with rate limiter, queue broker, JetStream, Postgres), SDK echo
//             workers; done when the broker has every job COMPLETED;
//   baseline  BullMQ on the local Redis: queue.add ×N from 32 concurrent callers, no-op worker processes (as many
//             and as concurrent as ours); done when every job is completed;
//   floor     the shape by hand (bench/lib/shape-floor.edge.mjs): POST /run ×N from the same clients to an edge that
//             records each submit in JetStream, an owner applying what is buffered in one transaction, and as many
//             long-polling node:http worker slots as ours; done when its table has every job COMPLETED. Its ratio
//             to BullMQ is what the shape costs under this load, ours against it what our implementation adds.
// jobs/s = N / (last job finished − first submit started); p99 = of each job's submit start → finished.
// Besides, each side's CPU per job over the round (`cpuMs`, and `cpu:<role>`): its processes and servers, not the
// submitting clients'; on this shared machine the figure to compare a change by.
import { WORKERS, WORKER_CONCURRENCY, bullmq, jobsEndpoint } from '../lib/fixtures.mjs';
import { pool, sleep, submitJobs, throughputOf, untilFinished } from '../lib/jobs-load.mjs';
import { pidsNamed, withCpuPer } from '../lib/process-cpu.mjs';
import { checkFloorRound, floorRecord, shapeFloor } from '../lib/shape-floor.mjs';

const SUBMITTERS = 32;
const DRAIN_TIMEOUT_MS = 120_000;

/** One BullMQ round: `count` jobs added from SUBMITTERS concurrent callers, until all completed. */
async function runBull(queue, count) {
  const submittedAt = new Map();
  await pool(count, SUBMITTERS, async (n) => {
    const started = Date.now();
    const job = await queue.add('job', { input: { n } });
    submittedAt.set(job.id, started);
  });
  const deadline = performance.now() + DRAIN_TIMEOUT_MS;
  for (;;) {
    if (performance.now() > deadline) {
      throw new Error(`BullMQ did not finish the jobs within ${DRAIN_TIMEOUT_MS / 1000} s`);
    }
    const counts = await queue.getJobCounts('completed', 'failed');
    if (counts.failed > 0) throw new Error(`${counts.failed} BullMQ job(s) failed`);
    if (counts.completed >= count) break;
    await sleep(100);
  }
  const jobs = await queue.getJobs(['completed'], 0, -1);
  const finishedAt = new Map(
    jobs.filter((job) => submittedAt.has(job.id)).map((job) => [job.id, job.finishedOn]),
  );
  if (finishedAt.size !== count) {
    throw new Error(`BullMQ: ${finishedAt.size} of ${count} jobs found completed`);
  }
  return throughputOf(count, submittedAt, finishedAt);
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
      floor: await shapeFloor(ctx, 'load', { workers: WORKERS, slots: WORKER_CONCURRENCY }),
      ctx,
      key: ctx.key,
      sql: ctx.sql,
      roles: {
        gateway: () => [ctx.system.pid('gateway')],
        broker: () => [ctx.system.pid('queue-broker')],
        postgres: () => pidsNamed('postgres'),
        nats: () => pidsNamed('nats-server'),
      },
    };
  },
  sides: {
    run: {
      label: 'POST /v2/{id}/run from 32 concurrent clients, SDK echo workers, until all COMPLETED',
      async run(state, { warmup }) {
        const count = warmup ? 50 : state.jobs;
        const roles = { ...state.roles, workers: () => state.endpoint.workerPids };
        return withCpuPer(count, roles, async () => {
          const submittedAt = await submitJobs({
            bases: [state.endpoint.base],
            key: state.key,
            count,
            submitters: SUBMITTERS,
          });
          const finishedAt = await untilFinished(state.sql, [...submittedAt.keys()], {
            timeoutMs: DRAIN_TIMEOUT_MS,
          });
          return throughputOf(count, submittedAt, finishedAt);
        });
      },
    },
    bullmq: {
      label:
        'BullMQ (local Redis): queue.add from 32 concurrent callers, no-op worker processes, until all completed',
      async run(state, { warmup }) {
        const { queue } = state.bull;
        const count = warmup ? 50 : state.jobs;
        await queue.clean(0, 0, 'completed'); // 0: no limit
        const roles = { redis: () => pidsNamed('redis-server'), workers: () => state.bull.workerPids };
        return withCpuPer(count, roles, () => runBull(queue, count));
      },
    },
    floor: {
      label: `the shape by hand: POST /run from ${SUBMITTERS} concurrent clients to a Fastify edge, JetStream-recorded commands applied a buffer per transaction, ${WORKERS} × ${WORKER_CONCURRENCY} node:http worker slots, until all COMPLETED`,
      async run(state, { warmup }) {
        const count = warmup ? 50 : state.jobs;
        const { floor, ctx } = state;
        const before = await floorRecord(ctx, floor);
        const roles = {
          floor: () => floor.pids,
          postgres: state.roles.postgres,
          nats: state.roles.nats,
        };
        const result = await withCpuPer(count, roles, async () => {
          const submittedAt = await submitJobs({
            bases: [floor.url],
            key: '',
            count,
            submitters: SUBMITTERS,
          });
          const finishedAt = await untilFinished(ctx.sql, [...submittedAt.keys()], {
            timeoutMs: DRAIN_TIMEOUT_MS,
            table: `${floor.schema}.jobs`,
          });
          return throughputOf(count, submittedAt, finishedAt);
        });
        checkFloorRound(before, await floorRecord(ctx, floor), count);
        return result;
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
    {
      label: 'CPU per job',
      unit: 'ms',
      better: 'lower',
      ours: ['run', 'cpuMs'],
      baseline: ['bullmq', 'cpuMs'],
    },
    {
      label: 'jobs/s, the shape by hand vs the same baseline (what the shape costs)',
      unit: 'jobs/s',
      better: 'higher',
      ours: ['floor', 'jobsPerSec'],
      baseline: ['bullmq', 'jobsPerSec'],
    },
    {
      label: 'p99 submit → finished, the shape by hand vs the same baseline',
      unit: 'ms',
      better: 'lower',
      ours: ['floor', 'p99'],
      baseline: ['bullmq', 'p99'],
    },
    {
      label: 'CPU per job, the shape by hand vs the same baseline',
      unit: 'ms',
      better: 'lower',
      ours: ['floor', 'cpuMs'],
      baseline: ['bullmq', 'cpuMs'],
    },
    {
      label: 'jobs/s, ours vs the shape by hand (what our implementation adds)',
      unit: 'jobs/s',
      better: 'higher',
      ours: ['run', 'jobsPerSec'],
      baseline: ['floor', 'jobsPerSec'],
    },
  ],
  notes: (state) => [`${state.jobs} jobs per round and side, submitted by ${SUBMITTERS} concurrent clients`],
};
