// Benchmark (not a test) of the queue: submit → COMPLETED latency (p50/p99) and sustained jobs/s with no-op
// workers, next to a bare NATS request-reply and BullMQ on the local Redis, measured in the same run.
//
//   npm run build && node bench/jobs.bench.mjs [--latency 200] [--jobs 1000] [--rounds 3] [--workers 2]
//
// It creates a scratch database and NATS prefix, starts the gateway and the queue broker on them, answers
// `endpoint.qry.get` for one endpoint itself (as endpoint-autoscaler would), and runs echo workers of
// @app/worker-sdk (libs/worker-sdk/dist/examples/echo.worker.js, WORKER_CONCURRENCY=8). Latency rounds alternate
// between the three systems (sequential requests: /runsync for ours, `waitUntilFinished` for BullMQ, a plain
// request for NATS); then each system gets `--jobs` jobs submitted 32 at a time and the wall time until every one
// completed gives jobs/s. Prints a table and writes bench/results/jobs-<date>.json; removes what it created.
import { spawn, execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { connect } from '@nats-io/transport-node';
import { Queue, QueueEvents, Worker } from 'bullmq';
import pg from 'pg';
import {
  ROOT,
  createDatabase,
  deleteNatsStreams,
  dropDatabase,
  ensureNats,
  ensurePostgres,
  runMigrations,
  waitForReady,
} from '../scripts/lib/infra.mjs';

const { values: args } = parseArgs({
  options: {
    latency: { type: 'string', default: '200' },
    jobs: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '3' },
    workers: { type: 'string', default: '2' },
    redis: { type: 'string', default: 'redis://127.0.0.1:6379' },
  },
});
const LATENCY = Number(args.latency);
const JOBS = Number(args.jobs);
const ROUNDS = Number(args.rounds);
const WORKERS = Number(args.workers);
const CONCURRENCY = 32;
const run = promisify(execFile);
const children = [];

async function freePort() {
  const server = createServer();
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function start(script, env) {
  const child = spawn(process.execPath, [join(ROOT, script)], {
    env: { PATH: process.env.PATH, ...env },
    stdio: 'ignore',
  });
  children.push(child);
  return child;
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function summary(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: +percentile(sorted, 50).toFixed(2),
    p99: +percentile(sorted, 99).toFixed(2),
  };
}

async function timed(fn) {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

async function pool(count, concurrency, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await fn(next++);
    }),
  );
}

const adminUrl = await ensurePostgres();
const natsUrl = await ensureNats();
const id = randomBytes(3).toString('hex');
const dbName = `gpucp_bench_jobs_${id}`;
const prefix = `benchjobs${id}`;
const databaseUrl = await createDatabase(adminUrl, dbName);
const nc = await connect({ servers: natsUrl.split(',') });
const redisUrl = new URL(args.redis);
const connection = { host: redisUrl.hostname, port: Number(redisUrl.port || 6379) };
const queueName = `gpucp-bench-${id}`;
let bull;

try {
  await runMigrations({ DATABASE_URL: databaseUrl });
  const { stdout: userLine } = await run(
    process.execPath,
    [join(ROOT, 'dist/apps/gateway/cli/keys.cli.js'), 'user', 'create', 'bench', '--exempt'],
    { env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl } },
  );
  const userId = userLine.split('\t')[0];
  const cli = async (...a) =>
    JSON.parse(
      (
        await run(process.execPath, [join(ROOT, 'dist/apps/gateway/cli/keys.cli.js'), ...a], {
          env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl },
        })
      ).stdout,
    );
  const endpointId = 'bench-endpoint';
  const userKey = (await cli('key', 'create', userId, '--json')).key;
  const workerKey = (
    await cli('key', 'create', userId, '--scope', 'worker', '--endpoints', endpointId, '--json')
  ).key;

  // endpoint-autoscaler's answer for the one endpoint.
  nc.subscribe(`${prefix}.endpoint.qry.get`, {
    callback: (_e, msg) =>
      msg.respond(
        JSON.stringify({
          ok: true,
          value: {
            id: endpointId,
            ownerId: userId,
            name: 'bench',
            type: 'QB',
            templateId: 't',
            gpuIds: ['AMPERE_16'],
            gpuCount: 1,
            locations: [],
            idleTimeout: 5,
            scalerType: 'QUEUE_DELAY',
            scalerValue: 4,
            workersMin: 0,
            workersMax: 1,
            flashBoot: false,
            networkVolumeId: null,
            createdAt: new Date().toISOString(),
          },
        }),
      ),
  });

  const common = {
    DATABASE_URL: databaseUrl,
    NATS_URL: natsUrl,
    NATS_PREFIX: prefix,
    LOG_LEVEL: 'warn',
    HTTP_HOST: '127.0.0.1',
    NODE_ENV: 'production',
  };
  const brokerPort = await freePort();
  const gatewayPort = await freePort();
  start('dist/apps/queue-broker/main.js', { ...common, HTTP_PORT: String(brokerPort) });
  start('dist/apps/gateway/main.js', {
    ...common,
    HTTP_PORT: String(gatewayPort),
    RATE_LIMITS_ENABLED: 'false',
    REGISTRY_AUTH_KEYS: `k1:${randomBytes(32).toString('base64')}`,
  });
  await waitForReady(`http://127.0.0.1:${brokerPort}`, 30_000);
  await waitForReady(`http://127.0.0.1:${gatewayPort}`, 30_000);
  const base = `http://127.0.0.1:${gatewayPort}/v2/${endpointId}`;
  for (let n = 0; n < WORKERS; n++) {
    start('libs/worker-sdk/dist/examples/echo.worker.js', {
      RUNPOD_WEBHOOK_GET_JOB: `${base}/job-take/$ID?gpu=x`,
      RUNPOD_WEBHOOK_POST_OUTPUT: `${base}/job-done/$RUNPOD_POD_ID/$ID?gpu=x`,
      RUNPOD_WEBHOOK_POST_STREAM: `${base}/job-stream/$RUNPOD_POD_ID/$ID?gpu=x`,
      RUNPOD_WEBHOOK_PING: `${base}/ping/$RUNPOD_POD_ID`,
      RUNPOD_POD_ID: `bench-worker-${n}`,
      RUNPOD_AI_API_KEY: workerKey,
      WORKER_CONCURRENCY: '8',
    });
  }
  const post = async (path, body) => {
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { authorization: userKey, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = await response.json();
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };

  // Bare NATS request-reply.
  nc.subscribe(`${prefix}.bench.echo`, { callback: (_e, msg) => msg.respond(msg.data) });
  // BullMQ with a no-op worker.
  const queue = new Queue(queueName, { connection });
  const events = new QueueEvents(queueName, { connection });
  const worker = new Worker(queueName, async (job) => job.data, { connection, concurrency: 16 });
  bull = { queue, events, worker };
  await events.waitUntilReady();

  const systems = {
    'nats request-reply': () => nc.request(`${prefix}.bench.echo`, '{"n":1}', { timeout: 5000 }),
    bullmq: async () => {
      const job = await queue.add('j', { n: 1 });
      await job.waitUntilFinished(events, 30_000);
    },
    'gpucp /runsync': async () => {
      const result = await post('/runsync?wait=30000', { input: { n: 1 } });
      if (result.status !== 'COMPLETED') throw new Error(`runsync: ${JSON.stringify(result)}`);
    },
  };
  // Warm-up.
  for (const fn of Object.values(systems)) for (let i = 0; i < 20; i++) await fn();

  const latency = Object.fromEntries(Object.keys(systems).map((k) => [k, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, fn] of Object.entries(systems)) {
      for (let i = 0; i < Math.ceil(LATENCY / ROUNDS); i++) latency[name].push(await timed(fn));
    }
  }

  const sql = new pg.Client({ connectionString: databaseUrl });
  await sql.connect();
  const throughput = {};
  throughput['nats request-reply'] =
    JOBS / ((await timed(() => pool(JOBS, CONCURRENCY, () => systems['nats request-reply']()))) / 1000);
  throughput.bullmq =
    JOBS /
    ((await timed(async () => {
      let done = 0;
      const all = new Promise((resolve) => {
        const onDone = () => {
          if (++done === JOBS) {
            worker.off('completed', onDone);
            resolve();
          }
        };
        worker.on('completed', onDone);
      });
      await pool(JOBS, CONCURRENCY, () => queue.add('j', { n: 1 }, { removeOnComplete: true }));
      await all;
    })) /
      1000);
  const before = Number(
    (await sql.query(`SELECT count(*) AS n FROM queue_broker.jobs WHERE status = 'COMPLETED'`)).rows[0].n,
  );
  throughput['gpucp /run'] =
    JOBS /
    ((await timed(async () => {
      await pool(JOBS, CONCURRENCY, () => post('/run', { input: { n: 1 } }));
      for (;;) {
        const n = Number(
          (await sql.query(`SELECT count(*) AS n FROM queue_broker.jobs WHERE status = 'COMPLETED'`)).rows[0]
            .n,
        );
        if (n - before >= JOBS) break;
        await new Promise((r) => setTimeout(r, 50));
      }
    })) /
      1000);
  await sql.end();

  const results = {
    date: new Date().toISOString(),
    machine: {
      cpus: cpus().length,
      model: cpus()[0]?.model,
      memoryGb: +(totalmem() / 2 ** 30).toFixed(1),
      node: process.version,
    },
    settings: {
      latencySamples: LATENCY,
      jobs: JOBS,
      rounds: ROUNDS,
      workers: WORKERS,
      workerConcurrency: 8,
      submitConcurrency: CONCURRENCY,
    },
    latencyMs: Object.fromEntries(Object.entries(latency).map(([k, v]) => [k, summary(v)])),
    jobsPerSecond: Object.fromEntries(Object.entries(throughput).map(([k, v]) => [k, +v.toFixed(1)])),
  };
  console.log('\nsubmit → completed latency (ms) and sustained throughput');
  console.log('system                 p50      p99     jobs/s');
  for (const name of Object.keys(systems)) {
    const l = results.latencyMs[name];
    const t = results.jobsPerSecond[name === 'gpucp /runsync' ? 'gpucp /run' : name];
    console.log(
      `${name.padEnd(20)} ${String(l.p50).padStart(7)} ${String(l.p99).padStart(8)} ${String(t).padStart(10)}`,
    );
  }
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  const file = join(ROOT, 'bench/results', `jobs-${results.date.slice(0, 19).replace(/[:T]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nwritten to ${file}`);
} finally {
  for (const child of children) child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 1500));
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  if (bull) {
    await bull.worker.close();
    await bull.events.close();
    await bull.queue.obliterate({ force: true }).catch(() => undefined);
    await bull.queue.close();
  }
  await nc.close();
  await deleteNatsStreams(natsUrl, prefix).catch(() => undefined);
  await dropDatabase(adminUrl, dbName).catch(() => undefined);
}
