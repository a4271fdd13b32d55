// What several scenarios share, made once per run on first use and undone by the run's cleanup: the queue
// endpoint with its no-op workers, the BullMQ queue with its workers, and the bare baseline servers.
import { join } from 'node:path';
import { Queue, QueueEvents } from 'bullmq';
import { ROOT } from '../../scripts/lib/infra.mjs';
import { createTemplate, endpointAiKey, saveEndpoint } from './api.mjs';
import { defer } from './cleanup.mjs';
import { freePorts, startNode, untilOutput, untilReady } from './processes.mjs';

/** Worker processes on each side of the queue comparisons, and the jobs each runs at once. */
export const WORKERS = 2;
export const WORKER_CONCURRENCY = 8;

const once = new Map();
function memo(key, make) {
  if (!once.has(key)) once.set(key, make());
  return once.get(key);
}

function track(proc) {
  defer(proc.name, () => proc.stop());
  return proc;
}

const jobWorkers = [];

/** The serverless template running the SDK's echo worker (gpucp/echo-worker of the local runtime). */
export function echoTemplate(ctx) {
  // One per user: a template is its owner's.
  return memo(
    `template:${ctx.userId}`,
    async () => (await createTemplate(ctx.api, 'bench-echo', 'gpucp/echo-worker')).id,
  );
}

/**
 * A queue endpoint the autoscaler leaves alone (workersMax 0) and its worker key (its `aiKey`, what its worker
 * pods get as RUNPOD_AI_API_KEY): `{ id, workerKey }`.
 */
export async function benchEndpoint(ctx, name) {
  const templateId = await echoTemplate(ctx);
  const id = await saveEndpoint(ctx.api, { name, templateId, workersMax: 0 });
  return { id, workerKey: await endpointAiKey(ctx.api, id) };
}

/**
 * `count` processes of the worker SDK's echo worker (libs/worker-sdk/dist/examples/echo.worker.js), `concurrency`
 * slots each, started as a worker pod would be with the endpoint's worker key; worker n talks to
 * `gateways[n % gateways.length]`. Pod ids are `<podPrefix>-<n>`: give each set its own. Returns the processes.
 */
export function startEchoWorkers({ endpoint, gateways, count, concurrency, podPrefix }) {
  return Array.from({ length: count }, (_, n) => {
    const base = `${gateways[n % gateways.length]}/v2/${endpoint.id}`;
    return startNode(`${podPrefix}-${n}`, join(ROOT, 'libs/worker-sdk/dist/examples/echo.worker.js'), {
      env: {
        RUNPOD_WEBHOOK_GET_JOB: `${base}/job-take/$ID?gpu=AMPERE_16`,
        RUNPOD_WEBHOOK_POST_OUTPUT: `${base}/job-done/$RUNPOD_POD_ID/$ID?gpu=AMPERE_16`,
        RUNPOD_WEBHOOK_POST_STREAM: `${base}/job-stream/$RUNPOD_POD_ID/$ID?gpu=AMPERE_16`,
        RUNPOD_WEBHOOK_PING: `${base}/ping/$RUNPOD_POD_ID`,
        RUNPOD_POD_ID: `${podPrefix}-${n}`,
        RUNPOD_ENDPOINT_ID: endpoint.id,
        RUNPOD_AI_API_KEY: endpoint.workerKey,
        WORKER_CONCURRENCY: String(concurrency),
      },
    });
  });
}

/**
 * A queue endpoint (`benchEndpoint`) served by WORKERS echo workers (`startEchoWorkers`, WORKER_CONCURRENCY each)
 * that run until the end of the run. Returns `{ id, base, workerPids }` (base: the endpoint's /v2 URL).
 */
export function jobsEndpoint(ctx) {
  return memo('jobs-endpoint', async () => {
    const endpoint = await benchEndpoint(ctx, 'bench-jobs');
    const workers = startEchoWorkers({
      endpoint,
      gateways: [ctx.system.url('gateway')],
      count: WORKERS,
      concurrency: WORKER_CONCURRENCY,
      podPrefix: 'bench-worker',
    });
    for (const worker of workers) jobWorkers.push(track(worker));
    return {
      id: endpoint.id,
      base: `${ctx.system.url('gateway')}/v2/${endpoint.id}`,
      workerPids: workers.map((worker) => worker.pid),
    };
  });
}

/**
 * Stops the queue endpoint's workers (a later `jobsEndpoint` makes a new endpoint with new ones). The cold-start
 * scenario does this first: a gateway with SDK workers long-polling it does not finish a graceful stop within
 * SHUTDOWN_GRACE_MS, which would add 10 s to every gateway restart (not to the start being measured).
 */
export async function releaseJobsEndpoint() {
  once.delete('jobs-endpoint');
  await Promise.all(jobWorkers.splice(0).map((worker) => worker.stop()));
}

/** The BullMQ connection options of the run's Redis. */
export function bullConnection(ctx) {
  const redis = new URL(ctx.redisUrl);
  return { host: redis.hostname, port: Number(redis.port || 6379) };
}

/**
 * `count` BullMQ no-op worker processes (bench/lib/bullmq-noop.worker.mjs) of queue `queue`, `concurrency` each,
 * resolved once every one is ready. The caller stops them.
 */
export async function startBullWorkers(ctx, { queue, count, concurrency, prefix }) {
  const workers = Array.from({ length: count }, (_, n) =>
    startNode(`${prefix}-${n}`, join(ROOT, 'bench/lib/bullmq-noop.worker.mjs'), {
      env: { REDIS_URL: ctx.redisUrl, QUEUE: queue, CONCURRENCY: String(concurrency) },
    }),
  );
  try {
    await Promise.all(workers.map((worker) => untilOutput(worker, 'ready')));
  } catch (error) {
    await Promise.all(workers.map((worker) => worker.stop()));
    throw error;
  }
  return workers;
}

/**
 * A BullMQ queue on the local Redis with WORKERS worker processes (`startBullWorkers`, WORKER_CONCURRENCY each).
 * Returns `{ queue, events }`; the queue is obliterated at the end of the run.
 */
export function bullmq(ctx) {
  return memo('bullmq', async () => {
    const connection = bullConnection(ctx);
    const name = `gpucp-bench-${ctx.runId}`;
    const queue = new Queue(name, { connection });
    const events = new QueueEvents(name, { connection });
    defer('bullmq queue', async () => {
      await events.close();
      await queue.obliterate({ force: true });
      await queue.close();
    });
    await Promise.all([queue.waitUntilReady(), events.waitUntilReady()]);
    const workers = await startBullWorkers(ctx, {
      queue: name,
      count: WORKERS,
      concurrency: WORKER_CONCURRENCY,
      prefix: 'bullmq-worker',
    });
    for (const worker of workers) track(worker);
    return { queue, events, workerPids: workers.map((worker) => worker.pid) };
  });
}

/** The bare Nest app (bench/lib/bare-nest.server.mjs), running; returns its URL. */
export function bareNest() {
  return memo('bare-nest', async () => {
    const [port] = await freePorts(1);
    const proc = track(
      startNode('bare-nest', join(ROOT, 'bench/lib/bare-nest.server.mjs'), {
        env: { HTTP_PORT: String(port) },
      }),
    );
    const url = `http://127.0.0.1:${port}`;
    await untilReady(proc, url);
    return url;
  });
}

/**
 * The bare Fastify route + NATS request-reply pair (bench/lib/bare-fastify-nats.server.mjs and
 * bench/lib/nats-noop.worker.mjs), on the run's NATS prefix; returns `{ url, pids }` (the route's URL, both processes).
 */
export function bareFastifyNats(ctx) {
  return memo('bare-fastify-nats', async () => {
    const subject = `${ctx.natsPrefix}.bench.noop`;
    const worker = track(
      startNode('nats-noop-worker', join(ROOT, 'bench/lib/nats-noop.worker.mjs'), {
        env: { NATS_URL: ctx.natsUrl, SUBJECT: subject },
      }),
    );
    await untilOutput(worker, 'ready');
    const [port] = await freePorts(1);
    const proc = track(
      startNode('bare-fastify', join(ROOT, 'bench/lib/bare-fastify-nats.server.mjs'), {
        env: { NATS_URL: ctx.natsUrl, SUBJECT: subject, HTTP_PORT: String(port) },
      }),
    );
    const url = `http://127.0.0.1:${port}`;
    await untilReady(proc, url);
    return { url, pids: [proc.pid, worker.pid] };
  });
}
