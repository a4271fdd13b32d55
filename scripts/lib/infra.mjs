// Shared plumbing for the developer scripts (start, migrate, test): installs dependencies, builds, makes sure
// PostgreSQL and NATS JetStream are reachable (starting or installing them locally when that is safe), manages
// databases and JetStream streams, and runs the apps' migrations. Plain Node ESM on purpose: it must run before
// `npm ci` and the TypeScript build, so `pg` and the NATS packages are only imported inside the functions.
import { AsyncLocalStorage } from 'node:async_hooks';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { userInfo } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUNDLED_APPS, BUNDLES, bundleFileOf, launcherOf } from './bundles.mjs';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const LOCAL_DIR = join(ROOT, '.local');

/** The five apps in start order, each with its default port (8080 for the gateway, then one each). */
export const APPS = BUNDLED_APPS.map((name, i) => ({ name, port: 8080 + i }));

const POSTGRES_PORT = 5432;
const NATS_PORT = 4222;
const LOCAL_HOST = '127.0.0.1';

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

const useColor = process.stdout.isTTY && !process.env.NO_COLOR;
const COLORS = { red: 31, green: 32, yellow: 33, blue: 34, magenta: 35, cyan: 36, gray: 90, bold: 1 };

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
const outputSink = new AsyncLocalStorage();

const timings = [];

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

function seconds(ms) {
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

const running = new Set();

/** Children started by `run`/`capture` that have not exited yet (test.mjs forwards SIGTERM to them). */
export function runningChildren() {
  return [...running];
}

function exec(command, args, { env = process.env, stdio = 'inherit' } = {}) {
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

function signalNumber(signal) {
  return { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 }[signal];
}

/** `run`, throwing an InfraError naming `what` on a non-zero exit. */
export async function runChecked(what, command, args, options) {
  const code = await run(command, args, options);
  if (code !== 0) {
    throw new InfraError(`${what} failed (${[command, ...args].join(' ')} exited with ${code})`);
  }
}

const ignore = () => undefined;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Calls `attempt` until it returns something other than undefined, or the time is up (then undefined). */
async function poll(attempt, timeoutMs, intervalMs = 250) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await attempt();
    if (result !== undefined || Date.now() >= deadline) return result;
    await sleep(intervalMs);
  }
}

function which(name, extraPaths = []) {
  const dirs = [...extraPaths, ...(process.env.PATH ?? '').split(delimiter)].filter(Boolean);
  return dirs.map((dir) => join(dir, name)).find((path) => existsSync(path));
}

function canAptInstall() {
  return existsSync('/etc/debian_version') && process.getuid?.() === 0;
}

async function aptInstall(pkg) {
  log(`installing ${pkg} with apt-get`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  await runChecked('apt-get update', 'apt-get', ['update'], { env });
  await runChecked(`installing ${pkg}`, 'apt-get', ['install', '-y', pkg], { env });
}

/** Resolves true when something accepts TCP connections on host:port. */
function isListening(port, host = LOCAL_HOST) {
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

// ---------------------------------------------------------------------------------------------------------------
// Dependencies and build

/**
 * Installs the locked dependencies when node_modules is missing or older than package-lock.json. `npm install`
 * rather than `npm ci`: the lock records only the platform packages the registry served (e.g. @swc/core's
 * linux-x64 build), and `npm ci` refuses a lock without every optional platform package.
 */
export async function ensureDependencies() {
  const installed = join(ROOT, 'node_modules', '.package-lock.json');
  const lock = join(ROOT, 'package-lock.json');
  if (existsSync(installed) && statSync(installed).mtimeMs >= statSync(lock).mtimeMs) {
    log('node_modules is up to date');
    return;
  }
  await runChecked('npm install', 'npm', ['install', '--no-audit', '--no-fund']);
}

/**
 * `npm run build`, unless dist/ was built from exactly these sources already: a build writes a stamp (a hash of its
 * inputs, below) to dist/.build-stamp, and a later `build()` whose inputs hash the same and whose outputs are all
 * there skips the build. CI (.ci/run) builds once in `npm test` and `npm run test:faults` reuses it (issue 16);
 * `npm test` or `npm run test:faults` alone, in a fresh clone or after any change, still builds.
 */
export async function build() {
  const stamp = buildStamp();
  if (stamp && readStamp() === stamp && buildOutputsExist()) {
    log(`dist/ is already built from these sources (stamp ${stamp.slice(0, 12)}): not building again`);
    return;
  }
  rmSync(BUILD_STAMP, { force: true });
  await runChecked('build', 'npm', ['run', 'build']);
  if (stamp && buildStamp() === stamp) writeFileSync(BUILD_STAMP, `${stamp}\n`);
}

const BUILD_STAMP = join(ROOT, 'dist', '.build-stamp');

function readStamp() {
  try {
    return readFileSync(BUILD_STAMP, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** What `npm run build` writes: every bundle and its launcher, the unbundled CLI, the console, every library's dist/. */
function buildOutputsExist() {
  const outputs = [
    ...BUNDLES.flatMap((target) => [launcherOf(target), bundleFileOf(target)]),
    'dist/tools/gpucp/gpucp.cli.js',
    'dist/console/index.html',
    ...readdirSync(join(ROOT, 'libs')).map((lib) => `libs/${lib}/dist`),
  ];
  return outputs.every((path) => existsSync(join(ROOT, path)));
}

// Where the build reads from: the apps, libraries and tools, the scripts, the root's configuration files
// (package.json, package-lock.json, tsconfig*.json, ...). Not test/, docs/, bench/ or deploy/, nor the root's
// Markdown (README.md): editing the documentation does not make the next `npm start` or bench build again.
const BUILD_INPUT_DIRS = new Set(['apps', 'libs', 'tools', 'scripts']);
/** Whether a tracked file (its path from the repository's root, `/`-separated) is one of the build's inputs. */
export const isBuildInput = (path) =>
  path.includes('/') ? BUILD_INPUT_DIRS.has(path.split('/')[0]) : !path.endsWith('.md');

/**
 * A sha256 over the build's inputs (path and content of every file git tracks or would track there), the installed
 * dependencies (node_modules/.package-lock.json) and the Node version; undefined outside a git checkout (then every
 * `build()` builds).
 */
function buildStamp() {
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'buffer',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (listed.status !== 0) return undefined;
  const files = listed.stdout
    .toString('utf8')
    .split('\0')
    .filter((path) => path && isBuildInput(path))
    .sort();
  const hash = createHash('sha256').update(`node ${process.version}\n`);
  for (const path of [...files, 'node_modules/.package-lock.json']) {
    hash.update(`${path}\0`);
    try {
      hash.update(readFileSync(join(ROOT, path)));
    } catch {
      hash.update('(missing)'); // listed but deleted from the work tree
    }
    hash.update('\0');
  }
  return hash.digest('hex');
}

// ---------------------------------------------------------------------------------------------------------------
// PostgreSQL

/** Shows a connection URL with its password masked. */
export function redact(url) {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '<unparsable URL>';
  }
}

async function withClient(url, fn) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  client.on('error', ignore);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(ignore);
  }
}

const checkConnects = (url) => withClient(url, (client) => client.query('SELECT 1'));

// The server is not up yet (or still starting): worth polling again rather than giving up.
const TRANSIENT_PG_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', '57P03']);

/**
 * Makes sure PostgreSQL is reachable and returns an admin connection URL. With a URL (argument or DATABASE_URL)
 * it only checks the connection. Otherwise it uses 127.0.0.1:5432 (trust auth as `postgres` or the OS user),
 * starting the Debian cluster, or installing PostgreSQL as root on Debian/Ubuntu, when nothing listens there.
 */
export async function ensurePostgres(databaseUrl = process.env.DATABASE_URL) {
  if (databaseUrl) {
    try {
      await checkConnects(databaseUrl);
    } catch (error) {
      throw new InfraError(`cannot connect to PostgreSQL at ${redact(databaseUrl)}: ${oneLine(error)}`);
    }
    log(`PostgreSQL: ${redact(databaseUrl)}`);
    return databaseUrl;
  }
  if (!(await isListening(POSTGRES_PORT))) await startLocalPostgres();
  const candidates = [...new Set(['postgres', userInfo().username])].map(
    (user) => `postgres://${encodeURIComponent(user)}@${LOCAL_HOST}:${POSTGRES_PORT}/postgres`,
  );
  // The password that startLocalPostgres sets on a cluster it installed (Debian's default is scram over TCP).
  candidates.push(`postgres://postgres:postgres@${LOCAL_HOST}:${POSTGRES_PORT}/postgres`);
  let lastError;
  const url = await poll(async () => {
    for (const candidate of candidates) {
      try {
        await checkConnects(candidate);
        return candidate;
      } catch (error) {
        lastError = error;
        if (TRANSIENT_PG_ERRORS.has(error.code)) return undefined;
      }
    }
    return null; // the server answers but refuses every candidate: polling will not help
  }, 30_000);
  if (!url) {
    throw new InfraError(
      `cannot connect to PostgreSQL on ${LOCAL_HOST}:${POSTGRES_PORT} as ${candidates.map((c) => new URL(c).username).join(' or ')}` +
        ` (${lastError ? oneLine(lastError) : 'timed out'}): allow trust auth for 127.0.0.1 or set DATABASE_URL`,
    );
  }
  log(`PostgreSQL: ${redact(url)}`);
  return url;
}

function debianClusterVersions() {
  if (!existsSync('/etc/postgresql')) return [];
  return readdirSync('/etc/postgresql')
    .filter((version) => existsSync(`/etc/postgresql/${version}/main`))
    .sort((a, b) => Number(b) - Number(a));
}

async function startLocalPostgres() {
  let versions = debianClusterVersions();
  let installed = false;
  if (versions.length === 0) {
    if (!canAptInstall()) {
      const hasPostgres = which('postgres') || which('pg_ctl');
      throw new InfraError(
        hasPostgres
          ? `PostgreSQL is not running on ${LOCAL_HOST}:${POSTGRES_PORT}: start it (trust auth for 127.0.0.1) or set DATABASE_URL`
          : 'PostgreSQL is not installed: install PostgreSQL 15+ (apt-get install postgresql) or set DATABASE_URL',
      );
    }
    await aptInstall('postgresql');
    versions = debianClusterVersions();
    if (versions.length === 0) {
      throw new InfraError('apt-get installed postgresql but created no cluster in /etc/postgresql');
    }
    installed = true;
  }
  const version = versions[0];
  log(`starting PostgreSQL cluster ${version}/main`);
  const code = await run('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'start']);
  // Exit code 2 is "already running" (the package's postinst may have started it).
  if (code !== 0 && !(await isListening(POSTGRES_PORT))) {
    throw new InfraError(
      `PostgreSQL cluster ${version}/main did not start (see /var/log/postgresql/postgresql-${version}-main.log)`,
    );
  }
  if (installed) {
    // A fresh Debian cluster only allows password logins over TCP; give `postgres` a known local password.
    await runChecked('setting the postgres password', 'runuser', [
      '-u',
      'postgres',
      '--',
      'psql',
      '-qc',
      "ALTER USER postgres PASSWORD 'postgres'",
    ]);
  }
}

function oneLine(error) {
  return String(error?.message || error?.code || error).split('\n')[0];
}

function quoteIdent(name) {
  return `"${name.replaceAll('"', '""')}"`;
}

/** The same server and credentials as `adminUrl`, pointing at database `name`. */
export function databaseUrlFor(adminUrl, name) {
  const url = new URL(adminUrl);
  url.pathname = `/${encodeURIComponent(name)}`;
  return url.toString();
}

/** CREATE DATABASE unless it exists; returns its URL. */
export async function createDatabase(adminUrl, name) {
  try {
    await withClient(adminUrl, async (client) => {
      const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (rowCount > 0) return;
      await client.query(`CREATE DATABASE ${quoteIdent(name)}`).catch((error) => {
        if (error.code !== '42P04') throw error; // created concurrently: fine
      });
      log(`created database ${name}`);
    });
  } catch (error) {
    throw new InfraError(`cannot create database ${name}: ${oneLine(error)}`);
  }
  return databaseUrlFor(adminUrl, name);
}

/** DROP DATABASE IF EXISTS, disconnecting anyone still using it. */
export async function dropDatabase(adminUrl, name) {
  try {
    await withClient(adminUrl, (client) =>
      client.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`),
    );
  } catch (error) {
    throw new InfraError(`cannot drop database ${name}: ${oneLine(error)}`);
  }
}

/** Names of the databases whose name starts with `prefix` (taken literally, not as a LIKE pattern). */
export async function listDatabases(adminUrl, prefix) {
  const { rows } = await withClient(adminUrl, (client) =>
    client.query('SELECT datname FROM pg_database WHERE starts_with(datname, $1) ORDER BY datname', [prefix]),
  );
  return rows.map((row) => row.datname);
}

/**
 * The database the apps use: DATABASE_URL as given, or database DATABASE_NAME (default `gpucp`) on the local
 * server, created when missing.
 */
export async function ensureAppDatabase() {
  if (process.env.DATABASE_URL) return ensurePostgres(process.env.DATABASE_URL);
  const adminUrl = await ensurePostgres();
  return createDatabase(adminUrl, process.env.DATABASE_NAME || 'gpucp');
}

/** Runs every app's migrations in order; `env` is added to the current environment. */
export async function runMigrations(env) {
  for (const { name } of APPS) {
    const script = join('dist', 'apps', name, 'migrate.mjs');
    if (!existsSync(join(ROOT, script))) throw new InfraError(`${script} is missing: did the build succeed?`);
    log(`migrating ${name}`);
    const code = await run(process.execPath, ['--enable-source-maps', script], {
      env: { ...process.env, ...env },
    });
    if (code !== 0) throw new InfraError(`migrations of ${name} failed (exit code ${code})`);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// NATS

function natsAddress(natsUrl) {
  const first = natsUrl.split(',')[0].trim();
  const url = new URL(first.includes('://') ? first : `nats://${first}`);
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || NATS_PORT) };
}

/** Connects and reads the server's INFO line; resolves `{ info }` or `{ error }` (never rejects). */
function readNatsInfo({ host, port }) {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port, timeout: 5000 });
    let buffer = '';
    const done = (result) => {
      socket.destroy();
      resolve(result);
    };
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      buffer += chunk;
      const end = buffer.indexOf('\r\n');
      if (end === -1 && buffer.length < 64 * 1024) return;
      const line = buffer.slice(0, end === -1 ? undefined : end);
      try {
        if (!line.startsWith('INFO ')) throw new Error('not INFO');
        done({ info: JSON.parse(line.slice(5)) });
      } catch {
        done({ error: new InfraError(`${host}:${port} does not look like a NATS server`) });
      }
    });
    socket.once('timeout', () =>
      done({ error: new InfraError(`${host}:${port} sent no NATS INFO within 5 s`) }),
    );
    socket.once('error', (error) => done({ error }));
    socket.once('close', () => done({ error: new InfraError(`${host}:${port} closed the connection`) }));
  });
}

function assertJetStream(serverInfo, where) {
  if (serverInfo.jetstream !== true) {
    throw new InfraError(`NATS at ${where} does not have JetStream enabled: restart nats-server with -js`);
  }
}

/**
 * Makes sure a NATS server with JetStream is reachable and returns its URL. With a URL (argument or NATS_URL) it
 * only checks it. Otherwise it uses 127.0.0.1:4222, starting nats-server there (data in .local/nats, log in
 * .local/nats.log), or installing it as root on Debian/Ubuntu, when nothing listens.
 */
export async function ensureNats(natsUrl = process.env.NATS_URL) {
  if (natsUrl) {
    const { info: serverInfo, error } = await readNatsInfo(natsAddress(natsUrl));
    if (error) throw new InfraError(`cannot reach NATS at ${natsUrl}: ${oneLine(error)}`);
    assertJetStream(serverInfo, natsUrl);
    log(`NATS: ${natsUrl} (nats-server ${serverInfo.version})`);
    return natsUrl;
  }
  const url = `nats://${LOCAL_HOST}:${NATS_PORT}`;
  const address = { host: LOCAL_HOST, port: NATS_PORT };
  let result = await readNatsInfo(address);
  if (result.error && !(await isListening(NATS_PORT))) {
    const server = await startLocalNats();
    result = await poll(async () => {
      if (server.exited) {
        return { error: new InfraError('nats-server exited right after starting (see .local/nats.log)') };
      }
      const attempt = await readNatsInfo(address);
      return attempt.info ? attempt : undefined;
    }, 20_000);
    result ??= {
      error: new InfraError(
        `nats-server did not accept connections on ${url} within 20 s (see .local/nats.log)`,
      ),
    };
  }
  if (result.error) throw new InfraError(`cannot use NATS at ${url}: ${oneLine(result.error)}`);
  assertJetStream(result.info, url);
  log(`NATS: ${url} (nats-server ${result.info.version})`);
  return url;
}

async function startLocalNats() {
  const findServer = () => which('nats-server', ['/usr/sbin']);
  let binary = findServer();
  if (!binary) {
    if (!canAptInstall()) {
      throw new InfraError(
        'NATS is not installed: install nats-server 2.9+ (apt-get install nats-server, or https://nats.io/download) or set NATS_URL',
      );
    }
    await aptInstall('nats-server');
    binary = findServer();
    if (!binary) throw new InfraError('apt-get installed nats-server but no nats-server binary was found');
    if (await isListening(NATS_PORT)) return { exited: false }; // the package's service started it
  }
  const storeDir = join(LOCAL_DIR, 'nats');
  mkdirSync(storeDir, { recursive: true });
  log(`starting ${binary} on ${LOCAL_HOST}:${NATS_PORT} (store .local/nats, log .local/nats.log)`);
  const args = [
    '-a',
    LOCAL_HOST,
    '-p',
    String(NATS_PORT),
    '-js',
    '-sd',
    storeDir,
    '-l',
    join(LOCAL_DIR, 'nats.log'),
  ];
  const child = spawn(binary, args, { cwd: ROOT, detached: true, stdio: 'ignore' });
  const server = { exited: false };
  child.on('exit', () => (server.exited = true));
  child.on('error', () => (server.exited = true));
  child.unref();
  return server;
}

/**
 * Deletes every JetStream stream named `<prefix>_…` (and key-value buckets, streams `KV_<prefix>_…`). With
 * `{ anySuffix: true }` it deletes everything whose name starts with `prefix` or `KV_<prefix>` (test runs whose
 * systems use derived prefixes). Returns the deleted stream names.
 */
export async function deleteNatsStreams(natsUrl, prefix, { anySuffix = false } = {}) {
  const { connect } = await import('@nats-io/transport-node');
  const { jetstreamManager } = await import('@nats-io/jetstream');
  const starts = anySuffix ? [prefix, `KV_${prefix}`] : [`${prefix}_`, `KV_${prefix}_`];
  const nc = await connect({ servers: natsUrl.split(','), timeout: 5000 });
  const deleted = [];
  try {
    const jsm = await jetstreamManager(nc);
    const names = [];
    for await (const si of jsm.streams.list()) names.push(si.config.name);
    for (const name of names.filter((n) => starts.some((start) => n.startsWith(start)))) {
      await jsm.streams.delete(name);
      deleted.push(name);
    }
  } finally {
    await nc.close();
  }
  return deleted;
}

// ---------------------------------------------------------------------------------------------------------------
// Apps

/** Polls `GET <url>/readyz` until it answers 200; throws after `timeoutMs` or when `signal` aborts. */
export async function waitForReady(url, timeoutMs, { signal } = {}) {
  const ready = await poll(async () => {
    if (signal?.aborted) return false;
    try {
      const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) });
      await response.body?.cancel();
      return response.status === 200 ? true : undefined;
    } catch {
      return undefined;
    }
  }, timeoutMs);
  if (!ready) {
    throw new InfraError(`${url}/readyz did not answer 200 within ${Math.round(timeoutMs / 1000)} s`);
  }
}

/**
 * Chromium for the web console's browser tests (test/e2e/console.e2e-spec.ts, docs/adr/0029-web-console.md):
 * `$CHROMIUM_PATH`, or Debian's `chromium` package at /usr/bin/chromium, installed with apt-get when missing and
 * this is a Debian machine run as root. The tests drive it with playwright-core, which never downloads a browser.
 * Returns the executable's path.
 */
export async function ensureChromium() {
  const wanted = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  if (existsSync(wanted)) return wanted;
  if (process.env.CHROMIUM_PATH || !canAptInstall()) {
    throw new InfraError(
      `Chromium is missing at ${wanted}: the console's browser tests need it ` +
        '(apt-get install chromium, or set CHROMIUM_PATH to a Chromium or Chrome executable)',
    );
  }
  await aptInstall('chromium');
  if (!existsSync(wanted)) throw new InfraError(`apt-get installed chromium but ${wanted} is not there`);
  return wanted;
}

/**
 * kustomize v5 renders deploy/ for the manifest checks: `$KUSTOMIZE`, `kustomize`, or `kubectl kustomize`
 * (kubectl >= 1.27 embeds it). Not installable from Debian (its kubectl is 1.20), so this only checks.
 */
export function ensureKustomize() {
  const candidates = [
    [process.env.KUSTOMIZE || 'kustomize', ['version']],
    ['kubectl', ['version', '--client']],
  ];
  for (const [command, args] of candidates) {
    const result = spawnSync(command, args, { encoding: 'utf8' });
    const major = Number(/(?:Kustomize Version:\s*|kustomize\/|^)v?(\d+)\./m.exec(result.stdout ?? '')?.[1]);
    if (result.status === 0 && major >= 5) return `${command} (kustomize v${major})`;
  }
  throw new InfraError(
    'kustomize v5 is missing: install kubectl >= 1.27 (it embeds kustomize v5) or kustomize v5, or set KUSTOMIZE',
  );
}
