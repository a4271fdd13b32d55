// `npm run bench`: the benchmark harness. Builds, makes sure Postgres, NATS JetStream and Redis are there, creates
// a database and NATS prefix of its own, generates a 10,000-host fleet, migrates, starts the five apps as
// production runs them (separate processes, real NATS, real Postgres), then runs each scenario with its baseline
// interleaved (a warm-up round, then A, B, A, B, ... for --rounds rounds). Prints a table of medians [min–max]
// over the rounds with the ratio ours/baseline, and writes the same, with the raw per-round figures and the
// machine, to bench/results/<date>.json. Everything it created is removed at the end, on failure and on Ctrl-C.
// Scenarios: jobs-sync, jobs-queue, throughput (the job path), drain (a backlog of --drain-jobs jobs drained by 64
// worker slots, with each app's peak RSS; at most 5 rounds), replicas (two gateways and queue-brokers against
// one, same load), edge, autoscaler, cold-start, placement, history (the metrics and billing routes over 1,000,000
// jobs and 10,000 pods of history seeded with SQL; --quick: 100,000 and 1,000), replay (a recorded history of job
// commands rebuilt and replayed by the operators' tool), audit (a filtered audit trail page over 10,000 recorded
// commands vs a bare authenticated route), lb (a load-balancing endpoint's worker through the
// gateway's proxy vs called directly), fleet (the fleet routes over the 10,000 hosts vs a bare authenticated route,
// and a drain of a host with 64 workers vs starting them from zero; at most 5 rounds, 3 with --quick).
//
//   npm run bench                        the full run (10 rounds; drain: 10,000 jobs a round, 5 rounds)
//   npm run bench -- --quick             small samples, 5 rounds (3 for drain, autoscaler, cold-start, placement,
//                                        edge, lb and replay; drain: 1,000 jobs a round): under 3 minutes (issue 13)
//   npm run bench -- --only jobs-sync,edge --rounds 7
//   npm run bench -- --only drain --drain-jobs 500
//   npm run bench -- --only fleet --fleet-workers 32   the drain's workers (64 unless told)
//
// Environment: DATABASE_URL (an admin connection; the local server otherwise), NATS_URL, REDIS_URL (default
// redis://127.0.0.1:6379: BullMQ's baselines). See bench/scenarios/*.mjs for what each scenario measures.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { execFile } from 'node:child_process';
import {
  InfraError,
  ROOT,
  build,
  createDatabase,
  deleteNatsStreams,
  dropDatabase,
  ensureDependencies,
  ensureNats,
  ensurePostgres,
  log,
  paint,
  printStepSummary,
  redact,
  runMain,
  runMigrations,
  step,
} from '../scripts/lib/infra.mjs';
import { cleanUpOnSignals, cleanup, defer } from './lib/cleanup.mjs';
import { machineInfo, markdownTable, printTable } from './lib/report.mjs';
import { runScenario } from './lib/rounds.mjs';

const SCENARIOS = [
  // First: a rebuild replays the whole stream, and what the later scenarios leave (rows seeded with SQL, takes of
  // several workers applied in parallel lanes, issue 14) is not yet rebuilt identically.
  'replay',
  'jobs-sync',
  'jobs-queue',
  'throughput',
  'drain',
  'replicas',
  'edge',
  'autoscaler',
  'cold-start',
  'placement',
  'quotas',
  'history',
  'audit',
  'lb',
  'fleet',
];
const FLEET_HOSTS = 10_000;

function usage() {
  return [
    'usage: npm run bench -- [--quick] [--rounds N] [--only scenario,scenario] [--drain-jobs N] [--fleet-workers N]',
    '       npm run bench -- --scale [--quick] ...   the scale family (--scale --help)',
    `scenarios (in run order): ${SCENARIOS.join(', ')}`,
  ].join('\n');
}

function parseArgsOrExit() {
  try {
    return parseArgs({
      options: {
        quick: { type: 'boolean', default: false },
        rounds: { type: 'string' },
        only: { type: 'string' },
        'drain-jobs': { type: 'string' },
        'fleet-workers': { type: 'string' },
        help: { type: 'boolean', default: false },
      },
    }).values;
  } catch (error) {
    console.error(`${error.message}\n${usage()}`);
    process.exit(2);
  }
}

// --scale: the scale family (bench/scale/run.mjs, issue 56) instead of these scenarios; it reads its own options.
const SCALE = process.argv.slice(2).includes('--scale');
const args = SCALE ? {} : parseArgsOrExit();

const run = promisify(execFile);

async function ensureRedis(url) {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 3000 });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    const info = await redis.info('server');
    log(`Redis: ${url} (redis ${/redis_version:(\S+)/.exec(info)?.[1] ?? '?'})`);
  } catch (error) {
    throw new InfraError(
      `cannot reach Redis at ${url} (the BullMQ baselines need it): ${error.message.replace(/\.$/, '')}; start redis-server or set REDIS_URL`,
    );
  } finally {
    redis.disconnect();
  }
}

const scenariosMain = async () => {
  if (args.help) {
    console.log(usage());
    return 0;
  }
  const rounds = Number(args.rounds ?? (args.quick ? 5 : 10));
  if (!Number.isInteger(rounds) || rounds < 5 || rounds > 100) {
    throw new InfraError(`--rounds must be an integer from 5 to 100\n${usage()}`, { exitCode: 2 });
  }
  const drainJobs = args['drain-jobs'] === undefined ? undefined : Number(args['drain-jobs']);
  if (drainJobs !== undefined && (!Number.isInteger(drainJobs) || drainJobs < 100 || drainJobs > 1_000_000)) {
    throw new InfraError(`--drain-jobs must be an integer from 100 to 1,000,000\n${usage()}`, {
      exitCode: 2,
    });
  }
  const fleetWorkers = args['fleet-workers'] === undefined ? undefined : Number(args['fleet-workers']);
  if (
    fleetWorkers !== undefined &&
    (!Number.isInteger(fleetWorkers) || fleetWorkers < 1 || fleetWorkers > 64)
  ) {
    throw new InfraError(`--fleet-workers must be an integer from 1 to 64\n${usage()}`, { exitCode: 2 });
  }
  const only = args.only ? args.only.split(',').map((s) => s.trim()) : SCENARIOS;
  const unknown = only.filter((id) => !SCENARIOS.includes(id));
  if (unknown.length) {
    throw new InfraError(`unknown scenario ${unknown.join(', ')}\n${usage()}`, { exitCode: 2 });
  }
  cleanUpOnSignals();
  const started = performance.now();
  const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
  const runId = randomBytes(3).toString('hex');

  try {
    await step('dependencies', ensureDependencies);
    await step('build', build);
    const adminUrl = await step('postgres', () =>
      ensurePostgres(process.env.TEST_ADMIN_DATABASE_URL || process.env.DATABASE_URL),
    );
    const natsUrl = await step('nats', () => ensureNats());
    await step('redis', () => ensureRedis(redisUrl));

    const database = `gpucp_bench_${runId}`;
    const natsPrefix = `bench${runId}`;
    const dir = mkdtempSync(join(tmpdir(), 'gpucp-bench-'));
    defer('temporary directory', () => rmSync(dir, { recursive: true, force: true }));
    const fleetFile = join(dir, 'fleet.json');
    const databaseUrl = await step('database', async () => {
      log(`run ${runId}: database ${database}, NATS prefix ${natsPrefix}, files in ${dir}`);
      defer('database', () => dropDatabase(adminUrl, database));
      defer('NATS streams', () => deleteNatsStreams(natsUrl, natsPrefix));
      const url = await createDatabase(adminUrl, database);
      const { stdout } = await run(
        process.execPath,
        [join(ROOT, 'scripts', 'generate-fleet.mjs'), '--hosts', String(FLEET_HOSTS)],
        { maxBuffer: 256 * 1024 * 1024 },
      );
      writeFileSync(fleetFile, stdout);
      log(`generated a ${FLEET_HOSTS}-host fleet`);
      await runMigrations({ DATABASE_URL: url });
      return url;
    });

    const { startSystem } = await import('./lib/system.mjs');
    const system = await step('apps', async () => {
      const started = await startSystem({
        databaseUrl,
        natsUrl,
        natsPrefix,
        fleetFile,
        podsDir: join(dir, 'pods'),
      });
      defer('apps', () => started.stop());
      log(`gateway ${started.url('gateway')} (rate limiter on), ${started.url('gateway-nolimit')} (off)`);
      return started;
    });

    const ctx = await step('accounts and connections', async () => {
      const { createUser, client } = await import('./lib/api.mjs');
      const { connect } = await import('@nats-io/transport-node');
      const { default: pg } = await import('pg');
      const user = await createUser({ databaseUrl, natsUrl, natsPrefix }, 'bench');
      const nc = await connect({ servers: natsUrl.split(','), name: 'bench-harness' });
      defer('NATS connection', () => nc.close());
      const sql = new pg.Pool({ connectionString: databaseUrl, max: 4 });
      sql.on('error', () => undefined);
      defer('Postgres pool', () => sql.end());
      return {
        quick: args.quick,
        rounds,
        roundsGiven: args.rounds !== undefined,
        drainJobs,
        fleetWorkers,
        runId,
        system,
        databaseUrl,
        natsUrl,
        natsPrefix,
        redisUrl,
        nc,
        sql,
        userId: user.userId,
        key: user.key,
        api: client(system.url('gateway'), user.key),
        fleet: { hosts: FLEET_HOSTS, file: fleetFile },
      };
    });

    const results = [];
    const failures = [];
    for (const id of SCENARIOS.filter((s) => only.includes(s))) {
      const { default: scenario } = await import(`./scenarios/${id}.mjs`);
      try {
        results.push(await runScenario(scenario, ctx));
      } catch (error) {
        console.error(paint(`${id} failed: ${error.stack ?? error}`, 'red'));
        failures.push({ id, error: String(error.message ?? error) });
      }
    }

    printTable(results);
    const date = new Date();
    const document = {
      benchmark: 'gpucp',
      date: date.toISOString(),
      mode: args.quick ? 'quick' : 'full',
      rounds,
      seconds: Math.round((performance.now() - started) / 1000),
      machine: machineInfo(),
      system: {
        apps: 'the five apps built (dist/apps/<app>/main.js), one process each, NODE_ENV=production, LOG_LEVEL=warn',
        postgres: redact(adminUrl),
        nats: natsUrl,
        redis: redisUrl,
        fleetHosts: FLEET_HOSTS,
        notes: [
          'the replicas scenario starts a second gateway and queue-broker for each of its "two" rounds and stops them after',
          'the gateway runs with the rate limiter on and quotas too large to refuse anything; the user is not exempt',
          'pod-lifecycle runs the local runtime; its simulated pods (cluster members) stay PROVISIONING (SIM_PROVISION_MS=3600000)',
          'the machine may be shared: compare ours with its baseline of the same run, not across runs',
        ],
      },
      scenarios: results,
      failures,
      markdown: markdownTable(results),
    };
    const stamp = date.toISOString().slice(0, 19).replace(/:/g, '-');
    const file = join(ROOT, 'bench', 'results', `${stamp}${args.quick ? '-quick' : ''}.json`);
    mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
    writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
    console.log(`\nwrote ${relative(ROOT, file)} (${document.seconds} s)`);
    if (failures.length) {
      console.error(
        paint(`${failures.length} scenario(s) failed: ${failures.map((f) => f.id).join(', ')}`, 'red'),
      );
      return 1;
    }
    return 0;
  } finally {
    await step('cleanup', cleanup);
    printStepSummary();
  }
};

runMain(SCALE ? (await import('./scale/run.mjs')).scaleMain : scenariosMain);
