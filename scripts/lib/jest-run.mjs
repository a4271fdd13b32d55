// What the test runners (scripts/test.mjs, scripts/test-faults.mjs) share: stopping cleanly on a signal, and
// running jest the way Nest 12 needs it (`--experimental-vm-modules`) with its totals read back from --json.
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { InfraError, ROOT, concurrentSteps, paint, run, runningChildren, step } from './infra.mjs';

let interrupted;

/**
 * The first SIGINT/SIGTERM/SIGHUP stops the run after the current step (cleanup still runs); a second one exits
 * at once. A terminal's Ctrl-C already reached the children (same process group); other signals are passed on.
 */
export function handleInterrupts() {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      if (interrupted) process.exit(130); // second signal: give up on the cleanup
      interrupted = signal;
      console.error(
        paint(
          `\n${signal}: stopping after the current step, then cleaning up (again to skip cleanup)`,
          'red',
        ),
      );
      if (signal !== 'SIGINT') runningChildren().forEach((child) => child.kill(signal));
    });
  }
}

/** A step that also stops the run once a signal has arrived. */
export async function stage(name, fn) {
  const result = await step(name, fn);
  if (interrupted) throw new InfraError(`interrupted by ${interrupted}`, { exitCode: 130 });
  return result;
}

/** Steps at the same time (`concurrentSteps`) that also stop the run once a signal has arrived. */
export async function concurrentStages(steps) {
  const results = await concurrentSteps(steps);
  if (interrupted) throw new InfraError(`interrupted by ${interrupted}`, { exitCode: 130 });
  return results;
}

/**
 * Runs jest with `args` and `env` added to this process's environment; returns its totals (null when jest did not
 * get as far as writing them) and throws an InfraError when jest failed.
 */
export async function runJest({ runId, args, env }) {
  mkdirSync(join(ROOT, '.local'), { recursive: true });
  // `--outputFile=<path>` among the arguments keeps jest's --json results there (per-file durations, issue 16);
  // otherwise they go to a temporary file that is read for the totals and removed.
  const given = args.find((arg) => arg.startsWith('--outputFile='));
  const resultsFile = given
    ? given.slice('--outputFile='.length)
    : join(ROOT, '.local', `jest-results-${runId}.json`);
  const jest = [
    '--experimental-vm-modules',
    'node_modules/jest/bin/jest.js',
    '--ci',
    '--json',
    `--outputFile=${resultsFile}`,
    ...args.filter((arg) => !arg.startsWith('--outputFile=')),
  ];
  const code = await run(process.execPath, jest, {
    env: {
      ...process.env,
      ...env,
      NODE_OPTIONS: [process.env.NODE_OPTIONS, '--experimental-vm-modules'].filter(Boolean).join(' '),
    },
  });
  const totals = readTotals(resultsFile, { keep: Boolean(given) });
  return { code, totals };
}

/** Counts from jest's --json output, or null when jest did not get as far as writing it. */
function readTotals(file, { keep = false } = {}) {
  if (!existsSync(file)) return null;
  const results = JSON.parse(readFileSync(file, 'utf8'));
  if (!keep) rmSync(file);
  return {
    passed: results.numPassedTests,
    failed: results.numFailedTests + results.numRuntimeErrorTestSuites,
    skipped: results.numPendingTests + results.numTodoTests,
    slowest: slowestFiles(results.testResults ?? []),
  };
}

/** The test files that took longest, with their seconds: where a slower `npm test` has gone (issue 16, 19). */
function slowestFiles(testResults, count = 10) {
  return testResults
    .filter((r) => r.startTime && r.endTime)
    .map((r) => ({ file: relative(ROOT, r.name), seconds: (r.endTime - r.startTime) / 1000 }))
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, count);
}

/** The closing line any CI can read. */
export function printTotals(totals) {
  if (!totals) return;
  if (totals.slowest?.length) {
    console.log('slowest test files:');
    for (const { file, seconds } of totals.slowest) {
      console.log(`  ${seconds.toFixed(1).padStart(7)} s  ${file}`);
    }
  }
  console.log(`tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
}
