// `npm test`, and what CI runs (.ci/run): dependencies, build, eslint, prettier, type-check of the tests, then
// jest against a fresh database `gpucp_test_<runId>` and NATS prefix `t<runId>`. Whatever the run created
// (its databases, including the `gpucp_test_<runId>_*` ones tests make, and its streams) is removed afterwards,
// pass or fail. `--skip-lint` skips eslint/prettier/tsc; every other argument goes to jest.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  InfraError,
  ROOT,
  build,
  createDatabase,
  deleteNatsStreams,
  dropDatabase,
  ensureDependencies,
  ensureKustomize,
  ensureNats,
  ensurePostgres,
  listDatabases,
  log,
  paint,
  printStepSummary,
  run,
  runChecked,
  runMain,
  runMigrations,
  runningChildren,
  step,
} from './lib/infra.mjs';

const args = process.argv.slice(2);
const skipLint = args.includes('--skip-lint');
const jestArgs = args.filter((arg) => arg !== '--skip-lint');

let interrupted;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    if (interrupted) process.exit(130); // second signal: give up on the cleanup
    interrupted = signal;
    console.error(
      paint(`\n${signal}: stopping after the current step, then cleaning up (again to skip cleanup)`, 'red'),
    );
    // A terminal Ctrl-C already reached the children (same process group); anything else is passed on.
    if (signal !== 'SIGINT') runningChildren().forEach((child) => child.kill(signal));
  });
}

/** A step that also stops the run once a signal has arrived. */
async function stage(name, fn) {
  const result = await step(name, fn);
  if (interrupted) throw new InfraError(`interrupted by ${interrupted}`, { exitCode: 130 });
  return result;
}

const npxTool = (name, toolArgs) => runChecked(name, join(ROOT, 'node_modules', '.bin', name), toolArgs);

runMain(async () => {
  const runId = randomBytes(4).toString('hex');
  const runDatabase = `gpucp_test_${runId}`;
  const natsPrefix = `t${runId}`;
  let cleanup;
  let totals = null;
  const resultsFile = join(ROOT, '.local', `jest-results-${runId}.json`);
  try {
    await stage('dependencies', ensureDependencies);
    await stage('build', build);
    if (!skipLint) {
      await stage('lint', () => npxTool('eslint', ['--max-warnings', '0', '.']));
      await stage('format', () => npxTool('prettier', ['--check', '.']));
      await stage('typecheck', () => npxTool('tsc', ['-p', 'tsconfig.test.json', '--noEmit']));
    }
    const adminUrl = await stage('postgres', () =>
      ensurePostgres(process.env.TEST_ADMIN_DATABASE_URL || process.env.DATABASE_URL),
    );
    const natsUrl = await stage('nats', () => ensureNats());
    await stage('kustomize', async () => log(`rendering deploy/ with ${ensureKustomize()}`));
    cleanup = () => removeRunResources({ adminUrl, natsUrl, runDatabase, natsPrefix });
    log(`run ${runId}: database ${runDatabase}, NATS prefix ${natsPrefix}`);
    const databaseUrl = await stage('database', () => createDatabase(adminUrl, runDatabase));
    const env = { DATABASE_URL: databaseUrl, NATS_URL: natsUrl, NATS_PREFIX: natsPrefix, LOG_LEVEL: 'warn' };
    await stage('migrate', () => runMigrations(env));
    await stage('jest', async () => {
      mkdirSync(join(ROOT, '.local'), { recursive: true });
      const jest = [
        '--experimental-vm-modules',
        'node_modules/jest/bin/jest.js',
        '--ci',
        '--json',
        `--outputFile=${resultsFile}`,
        ...jestArgs,
      ];
      const code = await run(process.execPath, jest, {
        env: {
          ...process.env,
          ...env,
          NODE_OPTIONS: [process.env.NODE_OPTIONS, '--experimental-vm-modules'].filter(Boolean).join(' '),
          TEST_RUN_ID: runId,
          TEST_ADMIN_DATABASE_URL: adminUrl,
        },
      });
      totals = readTotals(resultsFile);
      if (code !== 0) throw new InfraError(`jest failed (exit code ${code})`, { exitCode: code });
    });
  } finally {
    if (cleanup) {
      await step('cleanup', cleanup).catch((error) =>
        console.error(paint(`warning: cleanup incomplete: ${error.message}`, 'yellow')),
      );
    }
    printStepSummary();
    // One plain closing line that any CI can read: how many tests ran, passed, failed and were skipped.
    if (totals)
      console.log(`tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
  }
  return 0;
});

/** Counts from jest's --json output, or null when jest did not get as far as writing it. */
function readTotals(file) {
  if (!existsSync(file)) return null;
  const results = JSON.parse(readFileSync(file, 'utf8'));
  rmSync(file);
  return {
    passed: results.numPassedTests,
    failed: results.numFailedTests + results.numRuntimeErrorTestSuites,
    skipped: results.numPendingTests + results.numTodoTests,
  };
}

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
