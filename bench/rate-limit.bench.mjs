// Benchmark (not a test) of the per-user rate limiter: what it adds to a request, limiter on vs off in the same
// run, over loopback.
//
//   npm run build && node bench/rate-limit.bench.mjs [--requests 1200] [--concurrency 8] [--rounds 3]
//
// It creates a scratch database and NATS prefix, starts pod-lifecycle and two gateways on them (one with
// RATE_LIMITS_ENABLED=false, one with the limiter on and quotas too large to refuse anything), and sends the same
// workloads to both, alternating rounds so drift hits both alike:
//   - `auth-403`: DELETE with a read-only key: authentication, the limiter, then the scope check refuses it; no
//     bus, so the gateway's own cost, where the limiter weighs most. Once from one user (every request contends
//     for the same counter row: the worst case), once from as many users as requests in flight;
//   - `list-200`: GET /v1/containerregistryauth from one user: the same plus a query to pod-lifecycle over NATS.
// Prints a table and writes bench/results/rate-limit-<date>.json. Everything it creates is removed at the end.
import { spawn, execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
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
    requests: { type: 'string', default: '1200' },
    concurrency: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '3' },
  },
});
const REQUESTS = Number(args.requests); // per workload and gateway, split over the rounds
const CONCURRENCY = Number(args.concurrency);
const ROUNDS = Number(args.rounds);
const WARMUP = 200;
if (![REQUESTS, CONCURRENCY, ROUNDS].every((n) => Number.isInteger(n) && n > 0) || REQUESTS > 20_000) {
  console.error('--requests (1-20000), --concurrency and --rounds must be positive integers');
  process.exit(2);
}

const run = promisify(execFile);
const REGISTRY_AUTH_KEYS = `k1:${randomBytes(32).toString('base64')}`;
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

function startApp(app, env) {
  const child = spawn(process.execPath, [join(ROOT, 'dist', 'apps', app, 'main.js')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
  child.on('exit', (code, signal) => {
    if (!child.stopping) console.error(`${app} exited (${signal ?? code}):\n${stderr}`);
  });
  children.push(child);
  return child;
}

async function keysCli(databaseUrl, cliArgs) {
  const { stdout } = await run(
    process.execPath,
    [join(ROOT, 'dist/apps/gateway/cli/keys.cli.js'), ...cliArgs],
    {
      env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl },
    },
  );
  return stdout.trim();
}

/** Sends `count` requests with `CONCURRENCY` in flight; returns each one's latency (ms) and the wall time. */
async function load(request, count) {
  const latencies = [];
  let next = 0;
  const started = performance.now();
  const worker = async (_, index) => {
    while (next < count) {
      next += 1;
      const t0 = performance.now();
      await request(index);
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { latencies, seconds: (performance.now() - started) / 1000 };
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function summarise(latencies, seconds) {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    requests: sorted.length,
    p50Ms: Number(percentile(sorted, 50).toFixed(3)),
    p99Ms: Number(percentile(sorted, 99).toFixed(3)),
    reqPerSec: Math.round(sorted.length / seconds),
  };
}

/** Mean of the limiter's store statement, from the gateway's own histogram. */
async function storeStatementMs(url) {
  const text = await (await fetch(`${url}/metrics`)).text();
  const value = (name) =>
    Number(/\s(\S+)$/.exec(text.split('\n').find((l) => l.startsWith(name)) ?? ' 0')[1]);
  const count = value('gateway_rate_limit_store_seconds_count');
  return count ? Number(((value('gateway_rate_limit_store_seconds_sum') / count) * 1000).toFixed(3)) : null;
}

async function main() {
  const adminUrl = await ensurePostgres(process.env.TEST_ADMIN_DATABASE_URL || process.env.DATABASE_URL);
  const natsUrl = await ensureNats();
  const id = randomBytes(4).toString('hex');
  const database = `gpucp_bench_${id}`;
  const natsPrefix = `bench${id}`;
  const databaseUrl = await createDatabase(adminUrl, database);
  try {
    await runMigrations({ DATABASE_URL: databaseUrl });
    const common = {
      DATABASE_URL: databaseUrl,
      NATS_URL: natsUrl,
      NATS_PREFIX: natsPrefix,
      HTTP_HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      REGISTRY_AUTH_KEYS,
      RATE_LIMIT_REST: '999999999,999999999,999999999',
    };
    const ports = { pod: await freePort(), on: await freePort(), off: await freePort() };
    startApp('pod-lifecycle', { ...common, HTTP_PORT: String(ports.pod) });
    startApp('gateway', { ...common, HTTP_PORT: String(ports.on), RATE_LIMITS_ENABLED: 'true' });
    startApp('gateway', { ...common, HTTP_PORT: String(ports.off), RATE_LIMITS_ENABLED: 'false' });
    const urls = {
      on: `http://127.0.0.1:${ports.on}`,
      off: `http://127.0.0.1:${ports.off}`,
    };
    await Promise.all(
      [ports.pod, ports.on, ports.off].map((port) => waitForReady(`http://127.0.0.1:${port}`, 60_000)),
    );

    const readKeys = [];
    let full;
    for (let i = 0; i < CONCURRENCY; i++) {
      await keysCli(databaseUrl, ['user', 'create', `bench${i}`]);
      const key = (scope) => keysCli(databaseUrl, ['key', 'create', `bench${i}`, '--scope', scope, '--json']);
      readKeys.push(JSON.parse(await key('read')).key);
      if (i === 0) full = JSON.parse(await key('full')).key;
    }

    const denied = { expect: 403, method: 'DELETE', path: '/v1/containerregistryauth/x' };
    const workloads = {
      'auth-403 1 user': { ...denied, keys: [readKeys[0]] },
      [`auth-403 ${CONCURRENCY} users`]: { ...denied, keys: readKeys },
      'list-200 1 user': { expect: 200, method: 'GET', path: '/v1/containerregistryauth', keys: [full] },
    };
    const requester = (limiter, workload) => async (worker) => {
      const response = await fetch(`${urls[limiter]}${workload.path}`, {
        method: workload.method,
        headers: { authorization: `Bearer ${workload.keys[worker % workload.keys.length]}` },
      });
      await response.arrayBuffer();
      if (response.status !== workload.expect) {
        throw new Error(
          `${limiter} ${workload.method} ${workload.path}: ${response.status}, not ${workload.expect}`,
        );
      }
      if ((response.headers.get('ratelimit') !== null) !== (limiter === 'on')) {
        throw new Error(
          `${limiter}: RateLimit header ${response.headers.get('ratelimit') ? 'present' : 'absent'}`,
        );
      }
    };

    const results = [];
    for (const [name, workload] of Object.entries(workloads)) {
      for (const limiter of ['off', 'on']) await load(requester(limiter, workload), WARMUP);
      const samples = { on: [], off: [] };
      const seconds = { on: 0, off: 0 };
      const perRound = Math.ceil(REQUESTS / ROUNDS);
      for (let round = 0; round < ROUNDS; round++) {
        for (const limiter of round % 2 === 0 ? ['off', 'on'] : ['on', 'off']) {
          const { latencies, seconds: s } = await load(requester(limiter, workload), perRound);
          samples[limiter].push(...latencies);
          seconds[limiter] += s;
        }
      }
      for (const limiter of ['off', 'on']) {
        results.push({ workload: name, limiter, ...summarise(samples[limiter], seconds[limiter]) });
      }
    }
    const storeMs = await storeStatementMs(urls.on);

    const rows = results.map((r) => [
      `${r.workload}`,
      r.limiter,
      String(r.requests),
      r.p50Ms.toFixed(2),
      r.p99Ms.toFixed(2),
      String(r.reqPerSec),
    ]);
    const header = ['workload', 'limiter', 'requests', 'p50 ms', 'p99 ms', 'req/s'];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
    const line = (cells) => cells.map((c, i) => c.padStart(widths[i])).join('  ');
    console.log(`\nrate limiter, ${CONCURRENCY} requests in flight, loopback (${cpus().length} cores)\n`);
    console.log(line(header));
    for (const row of rows) console.log(line(row));
    const deltas = Object.keys(workloads).map((name) => {
      const off = results.find((r) => r.workload === name && r.limiter === 'off');
      const on = results.find((r) => r.workload === name && r.limiter === 'on');
      return {
        workload: name,
        p50DeltaMs: Number((on.p50Ms - off.p50Ms).toFixed(3)),
        p99DeltaMs: Number((on.p99Ms - off.p99Ms).toFixed(3)),
        throughputRatio: Number((on.reqPerSec / off.reqPerSec).toFixed(3)),
      };
    });
    console.log('');
    for (const d of deltas) {
      console.log(
        `${d.workload}: limiter adds ${d.p50DeltaMs} ms at p50, ${d.p99DeltaMs} ms at p99; throughput x${d.throughputRatio}`,
      );
    }
    console.log(`mean store statement (gateway_rate_limit_store_seconds): ${storeMs} ms`);

    const date = new Date().toISOString().slice(0, 10);
    const file = join(ROOT, 'bench', 'results', `rate-limit-${date}.json`);
    mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
    writeFileSync(
      file,
      `${JSON.stringify(
        {
          benchmark: 'rate-limit',
          at: new Date().toISOString(),
          machine: {
            cores: cpus().length,
            cpu: cpus()[0]?.model,
            memoryGb: Math.round(totalmem() / 2 ** 30),
          },
          node: process.version,
          settings: { requestsPerCell: REQUESTS, concurrency: CONCURRENCY, rounds: ROUNDS, warmup: WARMUP },
          results,
          deltas,
          meanStoreStatementMs: storeMs,
        },
        null,
        2,
      )}\n`,
    );
    console.log(`wrote ${file}`);
  } finally {
    await Promise.all(
      children.map(
        (child) =>
          new Promise((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.stopping = true;
            child.once('exit', resolve);
            child.kill('SIGTERM');
            setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
          }),
      ),
    );
    await deleteNatsStreams(natsUrl, natsPrefix).catch((error) => console.error(`streams: ${error.message}`));
    await dropDatabase(adminUrl, database).catch((error) => console.error(`database: ${error.message}`));
  }
}

await main();
