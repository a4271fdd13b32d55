// `npm run bench -- --scale`: the control plane at fleet size (issue 56). For each size (bench/scale/sizes.mjs:
// 100 / 1,000 / 10,000 hosts, 1,000 / 10,000 / 100,000 pods, 10 / 100 / 1,000 endpoints) it creates a database
// and NATS prefix of its own, generates the fleet, migrates, starts the five apps as production runs them, seeds
// what every measure needs, runs the measures (each beside a baseline measured in the same rounds), then memory
// and start-up over that size's fleet and history, and stops and drops everything. Prints the figures by size,
// their growth from size to size and issue 56's targets; writes bench/results/<date>-scale.json.
//
//   npm run bench -- --scale                     the full run (5 rounds; 15,000 admissions, 10M audit entries at L)
//   npm run bench -- --scale --quick             2 rounds, a smaller audit trail and fewer admissions: < 3 min built
//   npm run bench -- --scale --only placement,memory --sizes M,L
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { execFile } from 'node:child_process';
import { parseArgs, promisify } from 'node:util';
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
  runMigrations,
  step,
} from '../../scripts/lib/infra.mjs';
import { cleanUpOnSignals, cleanup, defer } from '../lib/cleanup.mjs';
import { machineInfo } from '../lib/report.mjs';
import { checkTargets, joinFigures, legend, markdown } from './report.mjs';
import { SIZE_NAMES, sizesFor } from './sizes.mjs';

// Seeds and runs go in this order; memory is read last, over everything the others made.
const MEASURES = ['routes', 'autoscaler', 'placement', 'admission', 'memory'];
const run = promisify(execFile);

function usage() {
  return [
    'usage: npm run bench -- --scale [--quick] [--rounds N] [--only measure,measure] [--sizes S,M,L] [--strict]',
    `measures (in run order): ${MEASURES.join(', ')}; sizes: ${SIZE_NAMES.join(', ')}`,
  ].join('\n');
}

function options() {
  try {
    return parseArgs({
      args: process.argv.slice(2).filter((arg) => arg !== '--scale'),
      options: {
        quick: { type: 'boolean', default: false },
        rounds: { type: 'string' },
        only: { type: 'string' },
        sizes: { type: 'string' },
        strict: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    }).values;
  } catch (error) {
    console.error(`${error.message}\n${usage()}`);
    process.exit(2);
  }
}

const list = (value, known, what) => {
  if (!value) return known;
  const items = value.split(',').map((s) => s.trim());
  const unknown = items.filter((item) => !known.includes(item));
  if (unknown.length) {
    throw new InfraError(`unknown ${what} ${unknown.join(', ')}\n${usage()}`, { exitCode: 2 });
  }
  return items;
};

/** One size: its own database, NATS prefix, fleet and apps; every measure's seed, then every measure's run. */
async function runSize(size, measures, common) {
  const { adminUrl, natsUrl, runId, quick, rounds } = common;
  const tag = `${runId}_${size.name.toLowerCase()}`;
  const database = `gpucp_scale_${tag}`;
  const natsPrefix = `scale${tag.replace('_', '')}`;
  const undo = [];
  const undoAll = async () => {
    while (undo.length) {
      await undo
        .pop()()
        .catch((e) => console.error(paint(`cleanup: ${e.message}`, 'yellow')));
    }
  };
  defer(`size ${size.name}`, undoAll);
  try {
    const dir = mkdtempSync(join(tmpdir(), `gpucp-scale-${size.name}-`));
    undo.push(async () => rmSync(dir, { recursive: true, force: true }));
    const fleetFile = join(dir, 'fleet.json');
    undo.push(() => dropDatabase(adminUrl, database));
    undo.push(() => deleteNatsStreams(natsUrl, natsPrefix));
    const databaseUrl = await createDatabase(adminUrl, database);
    const { stdout } = await run(
      process.execPath,
      [join(ROOT, 'scripts/generate-fleet.mjs'), '--hosts', String(size.hosts)],
      {
        maxBuffer: 256 * 1024 * 1024,
      },
    );
    writeFileSync(fleetFile, stdout);
    await runMigrations({ DATABASE_URL: databaseUrl });
    const appEnv = {};
    for (const measure of measures) {
      for (const [app, vars] of Object.entries(measure.appEnv?.(size) ?? {})) {
        appEnv[app] = { ...appEnv[app], ...vars };
      }
    }
    const { startSystem } = await import('../lib/system.mjs');
    const system = await startSystem({
      databaseUrl,
      natsUrl,
      natsPrefix,
      fleetFile,
      podsDir: join(dir, 'pods'),
      appEnv,
    });
    undo.push(() => system.stop());
    const { client, createOperator, createUser } = await import('../lib/api.mjs');
    const { connect } = await import('@nats-io/transport-node');
    const { default: pg } = await import('pg');
    const at = { databaseUrl, natsUrl, natsPrefix };
    const [user, operator] = await Promise.all([
      createUser(at, 'scale'),
      createOperator(at, 'scale-operator'),
    ]);
    const nc = await connect({ servers: natsUrl.split(','), name: `bench-scale-${size.name}` });
    undo.push(() => nc.close());
    const sql = new pg.Pool({ connectionString: databaseUrl, max: 8 });
    sql.on('error', () => undefined);
    undo.push(() => sql.end());
    const env = {
      size,
      quick,
      rounds,
      system,
      databaseUrl,
      natsUrl,
      natsPrefix,
      sql,
      nc,
      fleetFile,
      user,
      api: client(system.url('gateway'), user.key),
      operator,
      operatorApi: client(system.url('gateway'), operator.key),
      log: (line) => log(`[${size.name}] ${line}`),
    };
    for (const measure of measures) {
      if (!measure.seed) continue;
      const started = performance.now();
      await measure.seed(env);
      env.log(`${measure.id}: seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }
    const figures = [];
    const failures = [];
    for (const measure of measures) {
      const started = performance.now();
      try {
        figures.push(...(await measure.run(env)));
        env.log(`${measure.id}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
      } catch (error) {
        console.error(paint(`[${size.name}] ${measure.id} failed: ${error.stack ?? error}`, 'red'));
        failures.push({ size: size.name, id: measure.id, error: String(error.message ?? error) });
      }
    }
    return { size, figures, failures };
  } finally {
    await undoAll();
  }
}

/** The scale family's main (bench/run.mjs runs it under runMain when given --scale). */
export async function scaleMain() {
  const args = options();
  if (args.help) {
    console.log(usage());
    return 0;
  }
  const rounds = Number(args.rounds ?? (args.quick ? 2 : 5));
  if (!Number.isInteger(rounds) || rounds < 1 || rounds > 50) {
    throw new InfraError(`--rounds must be an integer from 1 to 50\n${usage()}`, { exitCode: 2 });
  }
  const only = list(args.only, MEASURES, 'measure');
  const sizes = sizesFor({ quick: args.quick, only: list(args.sizes, SIZE_NAMES, 'size') });
  cleanUpOnSignals();
  const started = performance.now();
  const runId = randomBytes(3).toString('hex');
  try {
    await step('dependencies', ensureDependencies);
    await step('build', build);
    const adminUrl = await step('postgres', () =>
      ensurePostgres(process.env.TEST_ADMIN_DATABASE_URL || process.env.DATABASE_URL),
    );
    const natsUrl = await step('nats', () => ensureNats());
    const measures = [];
    for (const id of MEASURES.filter((m) => only.includes(m))) {
      measures.push((await import(`./${id}.mjs`)).default);
    }
    const results = [];
    for (const size of sizes) {
      const label = `size ${size.name}: ${size.hosts.toLocaleString('en')} hosts, ${size.pods.toLocaleString('en')} pods, ${size.endpoints.toLocaleString('en')} endpoints`;
      results.push(
        await step(label, () =>
          runSize(size, measures, { adminUrl, natsUrl, runId, quick: args.quick, rounds }),
        ),
      );
    }
    const rows = joinFigures(results);
    const targets = checkTargets(rows, { quick: args.quick });
    const sizeNames = sizes.map((s) => s.name);
    const table = markdown(rows, targets, sizeNames);
    console.log(`\n${table}\n`);
    for (const line of legend(rows)) console.log(line);
    const failures = results.flatMap((r) => r.failures);
    const date = new Date();
    const document = {
      benchmark: 'gpucp-scale',
      date: date.toISOString(),
      mode: args.quick ? 'quick' : 'full',
      rounds,
      seconds: Math.round((performance.now() - started) / 1000),
      machine: machineInfo(),
      postgres: redact(adminUrl),
      nats: natsUrl,
      sizes,
      figures: rows,
      targets,
      failures,
      markdown: table,
    };
    const stamp = date.toISOString().slice(0, 19).replace(/:/g, '-');
    const file = join(ROOT, 'bench', 'results', `${stamp}-scale${args.quick ? '-quick' : ''}.json`);
    mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
    writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
    console.log(`\nwrote ${relative(ROOT, file)} (${document.seconds} s)`);
    if (failures.length) {
      console.error(
        paint(
          `${failures.length} measure(s) failed: ${failures.map((f) => `${f.size}/${f.id}`).join(', ')}`,
          'red',
        ),
      );
      return 1;
    }
    const missed = targets.filter((t) => t.met === false);
    if (missed.length) {
      console.error(
        paint(`${missed.length} target(s) missed: ${missed.map((t) => t.label).join('; ')}`, 'yellow'),
      );
    }
    return args.strict && missed.length ? 1 : 0;
  } finally {
    await step('cleanup', cleanup);
    printStepSummary();
  }
}
