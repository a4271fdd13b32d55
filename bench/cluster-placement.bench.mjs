// Benchmark (not a test) of cluster placement: create-to-201 of a 250-pod cluster over a generated 10,000-host
// fleet, next to a raw SQL reservation transaction of the same size measured in the same run.
//
//   npm run build && node bench/cluster-placement.bench.mjs [--hosts 10000] [--pods 250] [--rounds 20]
//
// It generates the fleet (scripts/generate-fleet.mjs), creates a scratch database and NATS prefix, starts the
// gateway and cluster-scheduler on them, and alternates rounds so drift hits both alike:
//   - `api`: POST /v2/clusters (250 pods × 1 GPU, one exposed port each) until the 201: gateway, validation, the
//     command through JetStream, snapshot + pure placement + guarded commit + VXLAN/CIDR + member rows + outbox;
//     then (untimed) DELETE and TERMINATED status events for every member, until the GPUs are back;
//   - `sql`: one transaction on a plain pg connection doing the database part of a reservation by hand: snapshot
//     query, first-fit in JS, lock the hosts, guarded UPDATE, INSERT 250 reservations and their ports, COMMIT;
//     then (untimed) undone.
// Prints p50/p99 of both and writes bench/results/cluster-placement-<date>.json. Removes everything it created.
import { execFile, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { jetstream } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
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
    hosts: { type: 'string', default: '10000' },
    pods: { type: 'string', default: '250' },
    rounds: { type: 'string', default: '20' },
  },
});
const HOSTS = Number(args.hosts);
const PODS = Number(args.pods);
const ROUNDS = Number(args.rounds);
if (
  ![HOSTS, PODS, ROUNDS].every((n) => Number.isInteger(n) && n > 0) ||
  PODS < 2 ||
  PODS > 250 ||
  ROUNDS > 500
) {
  console.error('--hosts must be a positive integer, --pods 2..250, --rounds 1..500');
  process.exit(2);
}

const run = promisify(execFile);
const children = [];
const S = '"cluster_scheduler"';

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

function start(app, env) {
  const child = spawn(process.execPath, [join(ROOT, 'dist', 'apps', app, 'main.js')], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let errors = '';
  child.stderr.on('data', (chunk) => (errors = (errors + chunk).slice(-4000)));
  child.on('exit', (code) => {
    if (code && code !== 0 && !stopping) console.error(`${app} exited with ${code}:\n${errors}`);
  });
  children.push(child);
  return child;
}

let stopping = false;
async function stopAll() {
  stopping = true;
  await Promise.all(
    children.map(
      (child) =>
        new Promise((resolve) => {
          if (child.exitCode !== null) return resolve();
          child.once('exit', resolve);
          child.kill('SIGTERM');
        }),
    ),
  );
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function summary(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const round = (x) => Math.round(x * 100) / 100;
  return {
    n: sorted.length,
    p50: round(percentile(sorted, 50)),
    p99: round(percentile(sorted, 99)),
    min: round(sorted[0]),
    max: round(sorted[sorted.length - 1]),
  };
}

async function until(probe, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const adminUrl = await ensurePostgres(process.env.TEST_ADMIN_DATABASE_URL || process.env.DATABASE_URL);
const natsUrl = await ensureNats();
const runId = randomBytes(3).toString('hex');
const database = `gpucp_bench_placement_${runId}`;
const natsPrefix = `benchpl${runId}`;
const fleetDir = mkdtempSync(join(tmpdir(), 'bench-fleet-'));
const fleetFile = join(fleetDir, 'fleet.json');
let client;
let nc;
try {
  const { stdout } = await run(
    process.execPath,
    [join(ROOT, 'scripts', 'generate-fleet.mjs'), '--hosts', String(HOSTS)],
    {
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  writeFileSync(fleetFile, stdout);
  const databaseUrl = await createDatabase(adminUrl, database);
  const env = {
    DATABASE_URL: databaseUrl,
    NATS_URL: natsUrl,
    NATS_PREFIX: natsPrefix,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'test',
  };
  await runMigrations(env);
  const [gatewayPort, schedulerPort] = [await freePort(), await freePort()];
  const bootStarted = Date.now();
  start('cluster-scheduler', {
    ...env,
    HTTP_PORT: String(schedulerPort),
    HTTP_HOST: '127.0.0.1',
    FLEET_FILE: fleetFile,
  });
  await waitForReady(`http://127.0.0.1:${schedulerPort}`, 60_000);
  const bootMs = Date.now() - bootStarted;
  start('gateway', {
    ...env,
    HTTP_PORT: String(gatewayPort),
    HTTP_HOST: '127.0.0.1',
    REGISTRY_AUTH_KEYS: `k1:${randomBytes(32).toString('base64')}`,
  });
  const gateway = `http://127.0.0.1:${gatewayPort}`;
  await waitForReady(gateway, 60_000);
  const cli = join(ROOT, 'dist', 'apps', 'gateway', 'cli', 'keys.cli.js');
  const cliEnv = { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl };
  await run(process.execPath, [cli, 'user', 'create', 'bench', '--exempt'], { env: cliEnv });
  const { key } = JSON.parse(
    (await run(process.execPath, [cli, 'key', 'create', 'bench', '--json'], { env: cliEnv })).stdout,
  );

  client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  nc = await connect({ servers: natsUrl.split(','), timeout: 5000 });
  const js = jetstream(nc);

  // The GPU type and data center with the most free GPUs: where both measurements place their pods.
  const best = (
    await client.query(
      `SELECT gpu_type_id, data_center_id, sum(free_gpus)::int AS free FROM ${S}.hosts
        WHERE active AND gpu_type_id IS NOT NULL GROUP BY 1, 2 ORDER BY 3 DESC, 1, 2 LIMIT 1`,
    )
  ).rows[0];
  if (best.free < PODS)
    throw new Error(`the fleet has at most ${best.free} free GPUs of one type in one data center`);
  const freeOfType = async () =>
    (
      await client.query(`SELECT sum(free_gpus)::int AS free FROM ${S}.hosts WHERE gpu_type_id = $1`, [
        best.gpu_type_id,
      ])
    ).rows[0].free;
  const baseline = await freeOfType();
  const body = {
    name: 'bench',
    type: 'TRAINING',
    compute: { gpuTypeId: best.gpu_type_id, gpuCountPerPod: 1, podCount: PODS },
    dataCenterIds: [best.data_center_id],
    ports: ['22/tcp'],
  };

  async function apiRound() {
    const started = process.hrtime.bigint();
    const response = await fetch(`${gateway}/v2/clusters`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const cluster = await response.json();
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (response.status !== 201)
      throw new Error(`create answered ${response.status}: ${JSON.stringify(cluster)}`);
    const members = await (
      await fetch(`${gateway}/v2/clusters/${cluster.id}/pods`, {
        headers: { authorization: `Bearer ${key}` },
      })
    ).json();
    await fetch(`${gateway}/v2/clusters/${cluster.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${key}` },
    });
    const at = new Date(Date.now() + 1000).toISOString();
    await Promise.all(
      members.map((m) => {
        const eventId = randomUUID();
        const payload = {
          podId: m.id,
          ownerId: 'bench',
          clusterId: cluster.id,
          rank: m.clusterRank,
          status: 'TERMINATED',
          previousStatus: 'RUNNING',
          hostId: null,
          publicIp: null,
          portMappings: {},
          at,
        };
        return js.publish(
          `${natsPrefix}.pod.evt.status-changed`,
          JSON.stringify({
            eventId,
            subject: 'pod.evt.status-changed',
            occurredAt: at,
            correlationId: eventId,
            payload,
          }),
          { msgID: eventId },
        );
      }),
    );
    await until(async () => (await freeOfType()) === baseline, 60_000, 'the GPUs to come back');
    return ms;
  }

  async function sqlRound(round) {
    const started = process.hrtime.bigint();
    await client.query('BEGIN');
    const hosts = (
      await client.query(
        `SELECT id, free_gpus, free_ports FROM ${S}.hosts
          WHERE active AND free_ports >= 1 AND gpu_type_id = $1 AND free_gpus >= 1 AND data_center_id = $2`,
        [best.gpu_type_id, best.data_center_id],
      )
    ).rows.sort((a, b) => a.free_gpus - b.free_gpus || (a.id < b.id ? -1 : 1));
    const take = new Map();
    let left = PODS;
    for (const h of hosts) {
      const n = Math.min(h.free_gpus, h.free_ports, left);
      if (n > 0) take.set(h.id, n);
      left -= n;
      if (!left) break;
    }
    const ids = [...take.keys()].sort();
    await client.query(`SELECT id FROM ${S}.hosts WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE`, [ids]);
    const updated = await client.query(
      `UPDATE ${S}.hosts h SET free_gpus = h.free_gpus - v.n, free_ports = h.free_ports - v.n
         FROM unnest($1::text[], $2::int[]) AS v(id, n)
        WHERE h.id = v.id AND h.free_gpus >= v.n AND h.free_ports >= v.n
        RETURNING h.id, h.port_start`,
      [ids, ids.map((id) => take.get(id))],
    );
    if (updated.rowCount !== ids.length) throw new Error('raw SQL round lost a race it cannot have');
    const used = await client.query(
      `SELECT host_id, port FROM ${S}.host_ports WHERE host_id = ANY($1::text[])`,
      [ids],
    );
    const taken = new Map(ids.map((id) => [id, new Set()]));
    for (const row of used.rows) taken.get(row.host_id).add(row.port);
    const rows = [];
    for (const { id, port_start } of updated.rows) {
      let port = port_start;
      for (let i = 0; i < take.get(id); i++) {
        while (taken.get(id).has(port)) port++;
        taken.get(id).add(port);
        rows.push({ podId: `bench-${round}-${rows.length}`, hostId: id, port });
      }
    }
    await client.query(
      `INSERT INTO ${S}.reservations (pod_id, owner_id, cluster_id, host_id, data_center_id, gpu_type_id, gpu_count,
                                      cpu_slots, network_volume_id, port_mappings, created_at)
       SELECT p, 'bench', NULL, h, $3, $4, 1, 0, NULL, jsonb_build_object('22/tcp', port), now()
         FROM unnest($1::text[], $2::text[], $5::int[]) AS v(p, h, port)`,
      [
        rows.map((r) => r.podId),
        rows.map((r) => r.hostId),
        best.data_center_id,
        best.gpu_type_id,
        rows.map((r) => r.port),
      ],
    );
    await client.query(
      `INSERT INTO ${S}.host_ports (host_id, port, pod_id) SELECT * FROM unnest($1::text[], $2::int[], $3::text[])`,
      [rows.map((r) => r.hostId), rows.map((r) => r.port), rows.map((r) => r.podId)],
    );
    await client.query('COMMIT');
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    await client.query('BEGIN');
    await client.query(
      `UPDATE ${S}.hosts h SET free_gpus = h.free_gpus + v.n, free_ports = h.free_ports + v.n
         FROM (SELECT host_id, count(*)::int AS n FROM ${S}.reservations WHERE pod_id LIKE 'bench-%' GROUP BY host_id) v
        WHERE h.id = v.host_id`,
    );
    await client.query(`DELETE FROM ${S}.reservations WHERE pod_id LIKE 'bench-%'`);
    await client.query('COMMIT');
    return ms;
  }

  console.log(
    `fleet: ${HOSTS} hosts (scheduler ready in ${bootMs} ms); placing ${PODS} pods × 1 ${best.gpu_type_id} ` +
      `(${best.free} free in ${best.data_center_id}); ${ROUNDS} rounds + 2 warm-up`,
  );
  await apiRound();
  await sqlRound('warm');
  const apiMs = [];
  const sqlMs = [];
  for (let i = 0; i < ROUNDS; i++) {
    apiMs.push(await apiRound());
    sqlMs.push(await sqlRound(i));
  }
  const result = {
    benchmark: 'cluster-placement',
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, memoryGb: Math.round(totalmem() / 2 ** 30) },
    fleet: {
      hosts: HOSTS,
      gpuTypeId: best.gpu_type_id,
      dataCenterId: best.data_center_id,
      freeGpus: best.free,
    },
    pods: PODS,
    rounds: ROUNDS,
    schedulerBootMs: bootMs,
    createTo201Ms: summary(apiMs),
    rawSqlReservationMs: summary(sqlMs),
  };
  console.log('');
  console.log('what                                 p50 ms    p99 ms    min ms    max ms');
  const line = (label, s) =>
    console.log(
      `${label.padEnd(35)}${[s.p50, s.p99, s.min, s.max].map((x) => x.toFixed(1).padStart(10)).join('')}`,
    );
  line(`POST /v2/clusters → 201 (${PODS} pods)`, result.createTo201Ms);
  line(`raw SQL reservation (${PODS} pods)`, result.rawSqlReservationMs);
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
  const file = join(ROOT, 'bench', 'results', `cluster-placement-${result.date.slice(0, 10)}.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`\nwrote ${file}`);
} finally {
  await client?.end().catch(() => undefined);
  await nc?.close().catch(() => undefined);
  await stopAll();
  await dropDatabase(adminUrl, database).catch(() => undefined);
  await deleteNatsStreams(natsUrl, natsPrefix).catch(() => undefined);
}
