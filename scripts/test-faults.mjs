// `npm run test:faults`, also run by CI (.ci/run) after `npm test`: the fault-injection suite (jest project
// `faults`, test/faults/**/*.fault-spec.ts, one file at a time). It builds, then starts a PRIVATE nats-server and
// a PRIVATE PostgreSQL cluster on free ports, their data in .local/faults-<runId>/ (Postgres's in a temp dir when
// the `postgres` user cannot reach that one): the tests kill and restart them, and the machine's shared services
// are never touched. Then it creates and migrates the run's database, runs the suite, prints each scenario's
// verdict and counts, and removes everything it started or wrote, pass or fail.
// Every argument goes to jest (e.g. `npm run test:faults -- --testPathPatterns nats`). The app-kill and NATS
// scenarios run two replicas of the gateway and of the queue-broker; FAULT_REPLICAS=1 runs one of each.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  InfraError,
  LOCAL_DIR,
  ROOT,
  build,
  createDatabase,
  ensureDependencies,
  log,
  paint,
  printStepSummary,
  runMain,
  runMigrations,
  step,
} from './lib/infra.mjs';
import { concurrentStages, handleInterrupts, printTotals, runJest, stage } from './lib/jest-run.mjs';
import {
  preparePrivateNats,
  preparePrivatePostgres,
  startNats,
  startPostgres,
  stopNats,
  stopPostgres,
  writeControlFile,
} from './lib/private-infra.mjs';

const jestArgs = process.argv.slice(2);
let failedVerdicts = 0;

handleInterrupts();

runMain(async () => {
  const runId = randomBytes(4).toString('hex');
  const runDir = join(LOCAL_DIR, `faults-${runId}`);
  const verdictsFile = join(runDir, 'verdicts.jsonl');
  const controlFile = join(runDir, 'control.json');
  const cleanups = [];
  let totals = null;
  let failure;
  try {
    await stage('dependencies', ensureDependencies);
    mkdirSync(runDir, { recursive: true });
    cleanups.push(() => rmSync(runDir, { recursive: true, force: true }));
    // The build (skipped when `npm test` just built the same sources: the build stamp, issue 16) and the private
    // servers' start do not depend on each other: side by side.
    const startNatsStep = async () => {
      const server = await preparePrivateNats(runDir);
      cleanups.unshift(() => stopNats(server, 'SIGKILL'));
      await startNats(server);
      log(
        `nats-server ${server.version} on ${server.url}, store ${relative(ROOT, runDir)}/nats` +
          (server.syncAlways ? ', sync_interval always' : ' (2.9: cannot fsync every write)'),
      );
      return server;
    };
    const startPostgresStep = async () => {
      const cluster = await preparePrivatePostgres(runDir);
      if (cluster.ownDir) cleanups.push(() => rmSync(cluster.ownDir, { recursive: true, force: true }));
      cleanups.unshift(() => stopPostgres(cluster));
      await startPostgres(cluster);
      log(`${cluster.version} on port ${cluster.port}, data ${relative(ROOT, cluster.dataDir)}`);
      return cluster;
    };
    const [, nats, postgres] = await concurrentStages([
      { name: 'build', fn: build },
      { name: 'nats (private)', fn: startNatsStep },
      { name: 'postgres (private)', fn: startPostgresStep },
    ]);
    writeControlFile(controlFile, { nats, postgres });
    const databaseUrl = await stage('database', () =>
      createDatabase(postgres.adminUrl, `gpucp_faults_${runId}`),
    );
    const env = {
      DATABASE_URL: databaseUrl,
      NATS_URL: nats.url,
      NATS_PREFIX: `f${runId}`,
      LOG_LEVEL: 'warn',
    };
    await stage('migrate', () => runMigrations(env));
    await stage('jest (faults)', async () => {
      const result = await runJest({
        runId,
        args: ['--selectProjects', 'faults', '--runInBand', ...jestArgs],
        env: {
          ...env,
          TEST_RUN_ID: runId,
          TEST_ADMIN_DATABASE_URL: postgres.adminUrl,
          FAULT_VERDICTS_FILE: verdictsFile,
          FAULT_INFRA_FILE: controlFile,
        },
      });
      totals = result.totals;
      if (result.code !== 0) {
        throw new InfraError(`jest failed (exit code ${result.code})`, { exitCode: result.code });
      }
    });
  } catch (error) {
    failure = error;
  } finally {
    const verdicts = readVerdicts(verdictsFile);
    await step('cleanup', async () => {
      const problems = [];
      for (const cleanup of cleanups) {
        try {
          await cleanup();
        } catch (error) {
          problems.push(error.message);
        }
      }
      if (problems.length) throw new InfraError(problems.join('; '));
      log(`stopped the private nats-server and PostgreSQL, removed ${relative(ROOT, runDir)}`);
    }).catch((error) => console.error(paint(`warning: cleanup incomplete: ${error.message}`, 'yellow')));
    printStepSummary();
    printVerdicts(verdicts);
    printTotals(totals);
  }
  if (failure) throw failure;
  // A scenario whose verdict is FAIL fails the run even if its jest assertions let it pass.
  if (failedVerdicts) throw new InfraError(`${failedVerdicts} fault verdict(s) FAIL`);
  return 0;
});

function readVerdicts(file) {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line));
}

/** One row per recorded verdict: name, PASS/FAIL, the counts as `key=value`. */
function printVerdicts(verdicts) {
  console.log(paint('==> fault verdicts', 'bold'));
  if (!verdicts.length) {
    console.log('    (no verdict recorded)');
    return;
  }
  const width = Math.max(...verdicts.map((v) => v.name.length), 'scenario'.length);
  console.log(`    ${'scenario'.padEnd(width)}  verdict  counts`);
  for (const v of verdicts) {
    const verdict = v.pass ? paint('PASS   ', 'green') : paint('FAIL   ', 'red');
    const counts = Object.entries(v.counts)
      .map(([key, value]) => `${key}=${value}`)
      .join(' ');
    console.log(`    ${v.name.padEnd(width)}  ${verdict}  ${counts}`);
  }
  failedVerdicts = verdicts.filter((v) => !v.pass).length;
  // Why each failing scenario failed, last: the end of the output is what a CI summary keeps.
  for (const v of verdicts.filter((v) => !v.pass && v.detail?.length)) {
    console.log(`    ${paint(v.name, 'red')}:`);
    for (const line of v.detail) console.log(`      ${line}`);
  }
  console.log(`    ${verdicts.length - failedVerdicts} of ${verdicts.length} scenario verdicts PASS`);
}
