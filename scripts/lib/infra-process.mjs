// The base of the developer scripts' plumbing (infra.mjs): the repository's paths, the apps, one-line errors,
// output, steps and child processes.
import { AsyncLocalStorage } from 'node:async_hooks';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createConnection } from 'node:net';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUNDLED_APPS } from './bundles.mjs';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const LOCAL_DIR = join(ROOT, '.local');

/** The five apps in start order, each with its default port (8080 for the gateway, then one each). */
export const APPS = BUNDLED_APPS.map((name, i) => ({ name, port: 8080 + i }));

export const POSTGRES_PORT = 5432;
export const NATS_PORT = 4222;
export const LOCAL_HOST = '127.0.0.1';

/**
 * An expected failure whose message is one line the user can act on; scripts print it without a stack and exit
 * with `exitCode` (default 1).
 */
export class InfraError extends Error {
  constructor(message, { exitCode = 1 } = {}) {
    super(message);
    this.exitCode = exitCode;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Output and process helpers

export const useColor = process.stdout.isTTY && !process.env.NO_COLOR;
export const COLORS = { red: 31, green: 32, yellow: 33, blue: 34, magenta: 35, cyan: 36, gray: 90, bold: 1 };

/** Wraps text in an ANSI color when stdout is a terminal (and NO_COLOR is unset). */
export function paint(text, color) {
  return useColor ? `\x1b[${COLORS[color]}m${text}\x1b[0m` : text;
}

export function log(message) {
  const line = paint(`    ${message}`, 'gray');
  const sink = outputSink.getStore();
  if (sink) sink.text += `${line}\n`;
  else console.log(line);
}

// Inside `concurrentSteps`, each step's output (its children's stdout and stderr, its `log` lines) is collected
// here and printed as one block when the step ends, rather than interleaved with the others'.
export const outputSink = new AsyncLocalStorage();

export const timings = [];

/** Runs one named step: prints `==> name`, times it, and records the outcome for `printStepSummary`. */
export async function step(name, fn) {
  console.log(paint(`==> ${name}`, 'bold'));
  const started = performance.now();
  const entry = { name, ms: 0, status: 'failed', started };
  timings.push(entry);
  try {
    const result = await fn();
    entry.status = 'ok';
    return result;
  } finally {
    entry.ms = performance.now() - started;
  }
}

/**
 * Runs independent steps at the same time (issue 16: eslint, tsc and the build are each one process on one core, and
 * CI has two), each timed and listed in the summary as `step` does. Each step's output is printed as one block, under
 * its `==> name`, when it ends. Resolves with their results in order once all have ended; rejects with the first
 * failure (in order) after all have ended.
 */
export async function concurrentSteps(steps) {
  console.log(paint(`==> ${steps.map((s) => s.name).join(' | ')} (at the same time)`, 'bold'));
  const started = performance.now();
  const outcomes = await Promise.allSettled(
    steps.map(async ({ name, fn }) => {
      const entry = { name, ms: 0, status: 'failed', started, concurrent: true };
      timings.push(entry);
      const sink = { text: '' };
      try {
        const result = await outputSink.run(sink, fn);
        entry.status = 'ok';
        return result;
      } catch (error) {
        sink.text += `${paint(`error: ${error.message}`, 'red')}\n`;
        throw error;
      } finally {
        entry.ms = performance.now() - started;
        console.log(paint(`==> ${name} (${seconds(entry.ms)})`, 'bold'));
        if (sink.text) process.stdout.write(sink.text.endsWith('\n') ? sink.text : `${sink.text}\n`);
      }
    }),
  );
  const failure = outcomes.find((o) => o.status === 'rejected');
  if (failure) throw failure.reason;
  return outcomes.map((o) => o.value);
}

export function printStepSummary() {
  if (timings.length === 0) return;
  const width = Math.max(...timings.map((t) => t.name.length));
  // Wall time from the first step's start to the last one's end (steps may overlap: `concurrentSteps`).
  const total =
    Math.max(...timings.map((t) => t.started + t.ms)) - Math.min(...timings.map((t) => t.started));
  console.log(paint('==> summary', 'bold'));
  for (const t of timings) {
    const status = t.status === 'ok' ? paint('ok', 'green') : paint(t.status, 'red');
    const overlap = t.concurrent ? paint('  (side by side)', 'gray') : '';
    console.log(`    ${t.name.padEnd(width)}  ${seconds(t.ms).padStart(7)}  ${status}${overlap}`);
  }
  console.log(`    ${'total'.padEnd(width)}  ${seconds(total).padStart(7)}`);
}

export function seconds(ms) {
  return `${(ms / 1000).toFixed(1)}s`;
}

/**
 * Runs a script's main function. A returned number becomes the exit code (nothing returned: the process keeps
 * running, e.g. while apps are up). InfraErrors print as one line; anything else is a bug and prints its stack.
 */
export function runMain(main) {
  main().then(
    (code) => {
      if (typeof code === 'number') process.exit(code);
    },
    (error) => {
      if (error instanceof InfraError) console.error(paint(`error: ${error.message}`, 'red'));
      else console.error(error);
      process.exit(error?.exitCode ?? 1);
    },
  );
}

export const running = new Set();

/** Children started by `run`/`capture` that have not exited yet (test.mjs forwards SIGTERM to them). */
export function runningChildren() {
  return [...running];
}

export function exec(command, args, { env = process.env, stdio = 'inherit' } = {}) {
  const sink = outputSink.getStore();
  // In a concurrent step, what would reach the terminal goes to the step's block; captured stdout stays the caller's.
  const stdoutIsData = Array.isArray(stdio);
  if (sink) stdio = ['ignore', 'pipe', 'pipe'];
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio });
    running.add(child);
    let stdout = '';
    child.stdout?.on('data', (chunk) => {
      if (sink && !stdoutIsData) sink.text += chunk;
      else stdout += chunk;
    });
    child.stderr?.on('data', (chunk) => (sink ? (sink.text += chunk) : process.stderr.write(chunk)));
    child.on('error', (error) => {
      running.delete(child);
      reject(
        error.code === 'ENOENT'
          ? new InfraError(`${command} not found: is it installed and on PATH?`)
          : error,
      );
    });
    child.on('close', (code, signal) => {
      running.delete(child);
      resolve({ code: code ?? 128 + (signalNumber(signal) ?? 0), stdout });
    });
  });
}

/** Runs a command in the repo root with inherited stdio; resolves with its exit code (128 + n if signalled). */
export async function run(command, args, { env } = {}) {
  return (await exec(command, args, { env })).code;
}

/** Like `run`, but captures stdout (stderr still goes to the terminal); resolves with `{ code, stdout }`. */
export function capture(command, args, { env } = {}) {
  return exec(command, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
}

export function signalNumber(signal) {
  return { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 }[signal];
}

/** `run`, throwing an InfraError naming `what` on a non-zero exit. */
export async function runChecked(what, command, args, options) {
  const code = await run(command, args, options);
  if (code !== 0) {
    throw new InfraError(`${what} failed (${[command, ...args].join(' ')} exited with ${code})`);
  }
}

export const ignore = () => undefined;
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Calls `attempt` until it returns something other than undefined, or the time is up (then undefined). */
export async function poll(attempt, timeoutMs, intervalMs = 250) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await attempt();
    if (result !== undefined || Date.now() >= deadline) return result;
    await sleep(intervalMs);
  }
}

export function which(name, extraPaths = []) {
  const dirs = [...extraPaths, ...(process.env.PATH ?? '').split(delimiter)].filter(Boolean);
  return dirs.map((dir) => join(dir, name)).find((path) => existsSync(path));
}

export function canAptInstall() {
  return existsSync('/etc/debian_version') && process.getuid?.() === 0;
}

export async function aptInstall(pkg) {
  log(`installing ${pkg} with apt-get`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  await runChecked('apt-get update', 'apt-get', ['update'], { env });
  await runChecked(`installing ${pkg}`, 'apt-get', ['install', '-y', pkg], { env });
}

/** Resolves true when something accepts TCP connections on host:port. */
export function isListening(port, host = LOCAL_HOST) {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port, timeout: 2000 });
    const done = (result) => {
      socket.destroy();
      resolve(result);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}

/** The first line of an error's message (or its code). */
export function oneLine(error) {
  return String(error?.message || error?.code || error).split('\n')[0];
}
