// `npm test`, and what CI runs (.ci/run): dependencies, build, eslint and the boundary lint, prettier, type-check of
// the tests, then jest against a fresh database `gpucp_test_<runId>` and NATS prefix `t<runId>`. Whatever the run created
// (its databases, including the `gpucp_test_<runId>_*` ones tests make, and its streams) is removed afterwards,
// pass or fail. `--skip-lint` skips eslint/prettier/tsc; every other argument goes to jest.
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import {
  InfraError,
  ROOT,
  build,
  createDatabase,
  deleteNatsStreams,
  dropDatabase,
  ensureChromium,
  ensurePrometheus,
  ensureDependencies,
  ensureKustomize,
  ensureNats,
  ensurePostgres,
  listDatabases,
  log,
  paint,
  printStepSummary,
  runChecked,
  runMain,
  runMigrations,
  step,
} from './lib/infra.mjs';
import { concurrentStages, handleInterrupts, printTotals, runJest, stage } from './lib/jest-run.mjs';

const args = process.argv.slice(2);
const skipLint = args.includes('--skip-lint');
const jestArgs = args.filter((arg) => arg !== '--skip-lint');
// The fault-injection project (`faults`) needs the private NATS and Postgres of `npm run test:faults`: it runs
// only there, unless projects are named explicitly.
if (!jestArgs.some((arg) => arg.startsWith('--selectProjects'))) {
  jestArgs.push('--selectProjects', 'unit', 'int', 'e2e');
}
// Two test files at a time at least, where jest would run one on two cores (its default is one worker fewer than
// the cores): an e2e file spends most of its time waiting (for its apps to start, for polls and timers), and the
// other file uses that time. On the idle 2-core machine the whole jest stage took about half as long
// (docs/adr/0032-ci-duration.md, "Two jest workers"). Every file has a database and a NATS prefix of its own, so
// files run side by side as they would in separate runs. `--maxWorkers`/`-w`/`--runInBand`/`-i` given here win.
const WORKER_ARGS = /^(--maxWorkers|-w|--runInBand|-i)(=|$)/;
if (!jestArgs.some((arg) => WORKER_ARGS.test(arg))) {
  jestArgs.push(`--maxWorkers=${Math.max(2, availableParallelism() - 1)}`);
}

handleInterrupts();

const npxTool = (name, toolArgs) => runChecked(name, join(ROOT, 'node_modules', '.bin', name), toolArgs);

runMain(async () => {
  const runId = randomBytes(4).toString('hex');
  const runDatabase = `gpucp_test_${runId}`;
  const natsPrefix = `t${runId}`;
  let cleanup;
  let totals = null;
  try {
    await stage('dependencies', ensureDependencies);
    // The build and the static checks read the sources only (the checks ignore dist/): they run side by side, each
    // a process of its own, on the two cores CI has (issue 16). Type-aware eslint is the longest; the type-check,
    // prettier and the boundary lint run one after the other beside it (each holding the whole program at once
    // would cost memory and gain nothing on two cores).
    const checks = [
      { name: 'lint', fn: () => npxTool('eslint', ['--max-warnings', '0', '.']) },
      {
        name: 'typecheck, format, boundaries',
        fn: async () => {
          await npxTool('tsc', ['-p', 'tsconfig.test.json', '--noEmit']);
          await npxTool('prettier', ['--check', '.']);
          // The boundaries between apps, libraries and feature folders (docs/architecture.md, "Boundaries").
          await runChecked('check-boundaries', process.execPath, [
            join(ROOT, 'scripts', 'check-boundaries.mjs'),
          ]);
        },
      },
    ];
    await concurrentStages([{ name: 'build', fn: build }, ...(skipLint ? [] : checks)]);
    const adminUrl = await stage('postgres', () =>
      ensurePostgres(process.env.TEST_ADMIN_DATABASE_URL || process.env.DATABASE_URL),
    );
    const natsUrl = await stage('nats', () => ensureNats());
    await stage('kustomize', async () => log(`rendering deploy/ with ${ensureKustomize()}`));
    // The console's browser tests are e2e tests: Chromium only when that project runs.
    const runsProject = (name) =>
      jestArgs.some((arg, i) => arg === name && jestArgs.slice(0, i).includes('--selectProjects'));
    const runsE2e = runsProject('e2e');
    const chromium = runsE2e
      ? await stage('chromium', async () => {
          const path = await ensureChromium();
          log(`browser tests use ${path}`);
          return path;
        })
      : undefined;
    // promtool for the rules' unit tests (unit project), a Prometheus server for the e2e one.
    const prometheus =
      runsE2e || runsProject('unit')
        ? await stage('prometheus', async () => {
            const paths = await ensurePrometheus();
            log(`monitoring tests use ${paths.prometheus} and ${paths.promtool}`);
            return paths;
          })
        : undefined;
    cleanup = () => removeRunResources({ adminUrl, natsUrl, runDatabase, natsPrefix });
    log(`run ${runId}: database ${runDatabase}, NATS prefix ${natsPrefix}`);
    const databaseUrl = await stage('database', () => createDatabase(adminUrl, runDatabase));
    const env = { DATABASE_URL: databaseUrl, NATS_URL: natsUrl, NATS_PREFIX: natsPrefix, LOG_LEVEL: 'warn' };
    await stage('migrate', () => runMigrations(env));
    await stage('jest', async () => {
      const result = await runJest({
        runId,
        args: jestArgs,
        env: {
          ...env,
          TEST_RUN_ID: runId,
          TEST_ADMIN_DATABASE_URL: adminUrl,
          ...(chromium ? { CHROMIUM_PATH: chromium } : {}),
          ...(prometheus
            ? { PROMETHEUS_PATH: prometheus.prometheus, PROMTOOL_PATH: prometheus.promtool }
            : {}),
        },
      });
      totals = result.totals;
      if (result.code !== 0) {
        throw new InfraError(`jest failed (exit code ${result.code})`, { exitCode: result.code });
      }
    });
  } finally {
    if (cleanup) {
      await step('cleanup', cleanup).catch((error) =>
        console.error(paint(`warning: cleanup incomplete: ${error.message}`, 'yellow')),
      );
    }
    printStepSummary();
    // One plain closing line that any CI can read: how many tests ran, passed, failed and were skipped.
    printTotals(totals);
  }
  return 0;
});

/** Drops the run's databases and deletes its streams; tries both even if one fails. */
async function removeRunResources({ adminUrl, natsUrl, runDatabase, natsPrefix }) {
  const problems = [];
  try {
    const databases = [runDatabase, ...(await listDatabases(adminUrl, `${runDatabase}_`))];
    for (const name of databases) await dropDatabase(adminUrl, name);
    log(`dropped ${databases.join(', ')}`);
  } catch (error) {
    problems.push(`databases: ${error.message}`);
  }
  try {
    const streams = await deleteNatsStreams(natsUrl, natsPrefix, { anySuffix: true });
    log(`deleted ${streams.length} NATS stream(s) starting with ${natsPrefix}`);
  } catch (error) {
    problems.push(`NATS streams: ${error.message}`);
  }
  if (problems.length > 0) throw new InfraError(problems.join('; '));
}
