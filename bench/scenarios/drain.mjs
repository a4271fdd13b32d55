// Draining a backlog: N jobs queued first, then drained by 64 worker slots (4 worker processes × 16).
//   ours      POST /v2/{endpoint}/run ×N from 32 concurrent clients while the endpoint has no worker; then 4 SDK
//             echo worker processes (16 slots each) start and drain it; done when the broker has every job
//             COMPLETED. The broker's own timestamps give the figures (queue_broker.jobs: queued_at, the submit's
//             commit; started_at, the take; finished_at).
//   baseline  BullMQ on the local Redis: queue.add ×N from 32 concurrent callers, then 4 no-op worker processes
//             (16 each) start; BullMQ's own timestamps (timestamp, processedOn, finishedOn) give the figures.
// jobs/s = N / (last finished − first taken); queue wait = taken − queued, its p99 over the round's N jobs (the
// backlog waits by construction: the jobs taken last waited through the fill and the whole drain). Peak RSS: VmHWM
// of each app process over the round (the mark is reset when the round starts), in the JSON and the notes.
import { Queue } from 'bullmq';
import { defer } from '../lib/cleanup.mjs';
import { benchEndpoint, bullConnection, startBullWorkers, startEchoWorkers } from '../lib/fixtures.mjs';
import { pool, sleep, submitJobs, untilFinished } from '../lib/jobs-load.mjs';
import { peakRssMb, resetPeakRss } from '../lib/processes.mjs';
import { quickRounds } from '../lib/rounds.mjs';
import { APP_NAMES } from '../lib/system.mjs';
import { median, percentile } from '../lib/stats.mjs';

const SUBMITTERS = 32;
const WORKER_PROCESSES = 4;
const SLOTS_PER_PROCESS = 16;
const WARMUP_JOBS = 200;
/** A drain may take this long plus this much per job (20 jobs/s at the least) before the round fails. */
const TIMEOUT_BASE_MS = 60_000;
const TIMEOUT_PER_JOB_MS = 50;
/** The full run's rounds at most: each round is already N samples, and N is large. */
const MAX_ROUNDS = 5;

const timeoutFor = (count) => TIMEOUT_BASE_MS + count * TIMEOUT_PER_JOB_MS;

/** The jobs of a round: `--drain-jobs`, else 1,000 with --quick and 10,000 in the full run. */
function jobsOf(ctx) {
  return ctx.drainJobs ?? (ctx.quick ? 1_000 : 10_000);
}

/** Figures of one drained round from the broker's timestamps. */
async function brokerFigures(sql, ids) {
  const { rows } = await sql.query(
    `SELECT count(*)::int AS n,
            (extract(epoch FROM max(finished_at) - min(started_at)) * 1000)::float8 AS drain_ms,
            (extract(epoch FROM percentile_disc(0.99) WITHIN GROUP (ORDER BY started_at - queued_at)) * 1000)::float8
              AS p99_wait
       FROM queue_broker.jobs WHERE id = ANY($1::text[])`,
    [ids],
  );
  const { n, drain_ms: drainMs, p99_wait: p99Wait } = rows[0];
  if (n !== ids.length) throw new Error(`the broker has ${n} of the ${ids.length} jobs`);
  return { jobsPerSec: (n * 1000) / drainMs, p99Wait };
}

export default {
  id: 'drain',
  title: 'backlog drain',
  rounds: (ctx) => (ctx.quick ? quickRounds(ctx, 3) : Math.min(ctx.rounds, MAX_ROUNDS)),
  async setup(ctx) {
    const jobs = jobsOf(ctx);
    const connection = bullConnection(ctx);
    const queueName = `gpucp-bench-${ctx.runId}-drain`;
    const queue = new Queue(queueName, { connection });
    defer('bullmq drain queue', async () => {
      await queue.obliterate({ force: true });
      await queue.close();
    });
    await queue.waitUntilReady();
    return {
      settings: {
        jobsPerRound: jobs,
        submitters: SUBMITTERS,
        workerProcesses: WORKER_PROCESSES,
        slotsPerProcess: SLOTS_PER_PROCESS,
      },
      ctx,
      jobs,
      endpoint: await benchEndpoint(ctx, 'bench-drain'),
      queue,
      queueName,
      apps: APP_NAMES.map((name) => ({ name, pid: ctx.system.pid(name) })),
    };
  },
  sides: {
    run: {
      label: `POST /v2/{id}/run ×N from ${SUBMITTERS} clients with no worker, then ${WORKER_PROCESSES} SDK echo worker processes × ${SLOTS_PER_PROCESS} slots drain it`,
      async run(state, { round, warmup }) {
        const count = warmup ? WARMUP_JOBS : state.jobs;
        // Where the kernel refuses the reset, the peak is since the app started (the notes say so).
        for (const app of state.apps) if (!resetPeakRss(app.pid)) state.rssSinceStart = true;
        const submittedAt = await submitJobs({
          bases: [`${state.ctx.system.url('gateway')}/v2/${state.endpoint.id}`],
          key: state.ctx.key,
          count,
          submitters: SUBMITTERS,
        });
        const ids = [...submittedAt.keys()];
        const workers = startEchoWorkers({
          endpoint: state.endpoint,
          gateways: [state.ctx.system.url('gateway')],
          count: WORKER_PROCESSES,
          concurrency: SLOTS_PER_PROCESS,
          podPrefix: `bench-drain-${warmup ? 'w' : round}`,
        });
        try {
          await untilFinished(state.ctx.sql, ids, {
            timeoutMs: timeoutFor(count),
            intervalMs: 250,
            endpointId: state.endpoint.id,
          });
        } finally {
          await Promise.all(workers.map((worker) => worker.stop()));
        }
        const rss = Object.fromEntries(state.apps.map((app) => [`rssMb.${app.name}`, peakRssMb(app.pid)]));
        return { ...(await brokerFigures(state.ctx.sql, ids)), ...rss };
      },
    },
    bullmq: {
      label: `BullMQ (local Redis): queue.add ×N from ${SUBMITTERS} callers, then ${WORKER_PROCESSES} no-op worker processes × ${SLOTS_PER_PROCESS} drain it`,
      async run(state, { round, warmup }) {
        const { queue } = state;
        const count = warmup ? WARMUP_JOBS : state.jobs;
        await queue.clean(0, 0, 'completed'); // 0: no limit
        const added = new Set();
        await pool(count, SUBMITTERS, async (n) => {
          added.add((await queue.add('job', { input: { n } })).id);
        });
        const workers = await startBullWorkers(state.ctx, {
          queue: state.queueName,
          count: WORKER_PROCESSES,
          concurrency: SLOTS_PER_PROCESS,
          prefix: `bullmq-drain-${warmup ? 'w' : round}`,
        });
        try {
          const deadline = performance.now() + timeoutFor(count);
          for (;;) {
            const counts = await queue.getJobCounts('completed', 'failed');
            if (counts.failed > 0) throw new Error(`${counts.failed} BullMQ job(s) failed`);
            if (counts.completed >= count) break;
            if (performance.now() > deadline) {
              throw new Error(`BullMQ did not drain ${count} jobs within ${timeoutFor(count) / 1000} s`);
            }
            await sleep(250);
          }
        } finally {
          await Promise.all(workers.map((worker) => worker.stop()));
        }
        const jobs = (await queue.getJobs(['completed'], 0, -1)).filter((job) => added.has(job.id));
        if (jobs.length !== count) throw new Error(`BullMQ: ${jobs.length} of ${count} jobs found completed`);
        const first = Math.min(...jobs.map((job) => job.processedOn));
        const last = Math.max(...jobs.map((job) => job.finishedOn));
        return {
          jobsPerSec: (count * 1000) / (last - first),
          p99Wait: percentile(
            jobs.map((job) => job.processedOn - job.timestamp),
            99,
          ),
        };
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
      label: 'p99 queue wait (queued → taken)',
      unit: 'ms',
      better: 'lower',
      ours: ['run', 'p99Wait'],
      baseline: ['bullmq', 'p99Wait'],
    },
  ],
  notes: (state, raw) => [
    `${state.jobs} jobs per round and side (--drain-jobs N to change), queued by ${SUBMITTERS} concurrent clients before any worker runs, then drained by ${WORKER_PROCESSES} worker processes × ${SLOTS_PER_PROCESS} slots; jobs/s from the first take to the last finish`,
    `peak RSS of each app ${state.rssSinceStart ? 'since it started (the reset was refused)' : 'over a round'} (VmHWM), median over the rounds: ${state.apps
      .map((app) => `${app.name} ${Math.round(median(raw.run[`rssMb.${app.name}`] ?? []))} MiB`)
      .join(', ')}`,
  ],
};
