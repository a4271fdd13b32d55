// A private nats-server and a private PostgreSQL cluster for the fault-injection suite (scripts/test-faults.mjs):
// each on a free port of 127.0.0.1, with its data under one run directory, so that killing and restarting them
// never touches the services other runs and developers share. The suite's tests stop and start them again
// through test/faults/support/infra-control.ts, which reads the control file written here (`writeControlFile`):
// the exact command lines, pid file and data directory, so there is one definition of how each is started.
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  writeFileSync,
} from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { InfraError, log } from './infra.mjs';

const HOST = '127.0.0.1';
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A port of 127.0.0.1 nobody listens on right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, HOST, () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function accepts(port) {
  return new Promise((resolve) => {
    const socket = createConnection({ host: HOST, port, timeout: 1000 });
    const done = (result) => {
      socket.destroy();
      resolve(result);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}

async function waitUntil(what, check, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(100);
  }
  throw new InfraError(`${what} within ${Math.round(timeoutMs / 1000)} s`);
}

function findBinary(name, extraDirs = []) {
  const dirs = [...extraDirs, ...(process.env.PATH ?? '').split(delimiter)].filter(Boolean);
  return dirs.map((dir) => join(dir, name)).find((path) => existsSync(path));
}

function pidAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

function readPid(file) {
  if (!existsSync(file)) return null;
  const pid = Number.parseInt(readFileSync(file, 'utf8').split('\n')[0], 10);
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

// ---------------------------------------------------------------------------------------------------------------
// NATS

function natsVersion(binary) {
  const result = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  const match = /v?(\d+)\.(\d+)\.(\d+)/.exec(`${result.stdout}${result.stderr}`);
  return match ? match.slice(1, 4).map(Number) : [0, 0, 0];
}

/**
 * Writes the private server's configuration (JetStream on, 2 MB payloads as deploy/base/nats/nats.conf has, and
 * `sync_interval: always` there too when the server is 2.10 or later; 2.9 cannot be told to fsync every write).
 */
export async function preparePrivateNats(runDir) {
  const binary = findBinary('nats-server', ['/usr/sbin', '/usr/local/bin']);
  if (!binary) throw new InfraError('nats-server is not installed (apt-get install nats-server)');
  const [major, minor] = natsVersion(binary);
  const canSync = major > 2 || (major === 2 && minor >= 10);
  const port = await freePort();
  const storeDir = join(runDir, 'nats');
  mkdirSync(storeDir, { recursive: true });
  const config = join(runDir, 'nats.conf');
  const pidFile = join(runDir, 'nats.pid');
  writeFileSync(
    config,
    [
      `listen: "${HOST}:${port}"`,
      `pid_file: "${pidFile}"`,
      'max_payload: 2MB',
      'jetstream {',
      `  store_dir: "${storeDir}"`,
      ...(canSync ? ['  sync_interval: always'] : []),
      '}',
      '',
    ].join('\n'),
  );
  return {
    url: `nats://${HOST}:${port}`,
    port,
    command: binary,
    args: ['-c', config],
    pidFile,
    logFile: join(runDir, 'nats.log'),
    version: `${major}.${minor}`,
    syncAlways: canSync,
  };
}

/** Starts the server in the background (detached, output appended to its log) and waits until it accepts. */
export async function startNats(nats) {
  const fd = openSync(nats.logFile, 'a');
  try {
    const child = spawn(nats.command, nats.args, { detached: true, stdio: ['ignore', fd, fd] });
    child.unref();
  } finally {
    closeSync(fd);
  }
  await waitUntil(
    `the private nats-server did not accept connections on port ${nats.port} (see ${nats.logFile})`,
    () => accepts(nats.port),
    20_000,
  );
}

/** Stops the server (`signal`, then SIGKILL after 10 s) and waits until it is gone; fine when it is not running. */
export async function stopNats(nats, signal = 'SIGTERM') {
  const pid = readPid(nats.pidFile);
  if (!pid || !pidAlive(pid)) return;
  process.kill(pid, signal);
  const deadline = Date.now() + 10_000;
  while (pidAlive(pid)) {
    if (Date.now() > deadline) process.kill(pid, 'SIGKILL');
    await sleep(50);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// PostgreSQL

function postgresBinDir() {
  const initdb = findBinary('initdb');
  if (initdb) return join(initdb, '..');
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!versions.length) {
    throw new InfraError('PostgreSQL server binaries (initdb, pg_ctl) not found: apt-get install postgresql');
  }
  return join(root, versions[0], 'bin');
}

/** initdb refuses to run as root: as root the cluster belongs to `postgres`, otherwise to the current user. */
function runAs(argv) {
  return process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--', ...argv] : argv;
}

function execChecked(what, argv) {
  const result = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8' });
  if (result.status !== 0) {
    throw new InfraError(
      `${what} failed (exit ${result.status}): ${(result.stderr || result.stdout).trim()}`,
    );
  }
  return result.stdout;
}

/**
 * Creates a fresh cluster in `<runDir>/pg` (trust auth, user `postgres`, TCP on a free port only) and returns how
 * to start and stop it. fsync is off: the suite kills processes, never the machine, and the OS keeps what a killed
 * server wrote; crash recovery still runs on every restart after an immediate stop.
 */
export async function preparePrivatePostgres(runDir) {
  const bin = postgresBinDir();
  const root = postgresRoot(runDir);
  const dataDir = join(root, 'pg');
  const logDir = join(root, 'pg-log');
  const logFile = join(logDir, 'postgres.log');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  mkdirSync(logDir, { recursive: true });
  if (process.getuid?.() === 0) {
    const { uid, gid } = userInfoOf('postgres');
    chownSync(dataDir, uid, gid);
    chownSync(logDir, uid, gid);
  }
  execChecked(
    'initdb',
    runAs([join(bin, 'initdb'), '-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']),
  );
  const port = await freePort();
  const options = [
    `-p ${port}`,
    `-c listen_addresses=${HOST}`,
    "-c unix_socket_directories=''",
    '-c max_connections=300',
    '-c fsync=off',
    '-c full_page_writes=off',
  ].join(' ');
  const pgCtl = join(bin, 'pg_ctl');
  return {
    adminUrl: `postgres://postgres@${HOST}:${port}/postgres`,
    port,
    dataDir,
    // Outside the run directory when `postgres` could not reach that one: the runner removes it too.
    ownDir: root === runDir ? null : root,
    logFile,
    start: runAs([pgCtl, '-D', dataDir, '-l', logFile, '-w', '-t', '60', '-o', options, 'start']),
    // `immediate`: no shutdown checkpoint, connections dropped at once, crash recovery on the next start.
    stop: runAs([pgCtl, '-D', dataDir, '-m', 'immediate', '-w', '-t', '60', 'stop']),
    version: execChecked('pg_ctl --version', [pgCtl, '--version']).trim(),
  };
}

/**
 * Where the cluster lives: the run directory, unless we are root and the `postgres` user cannot reach it (a clone
 * under a private home directory, say); then a fresh directory under the system's temp dir.
 */
function postgresRoot(runDir) {
  if (process.getuid?.() !== 0) return runDir;
  const reachable = spawnSync('runuser', ['-u', 'postgres', '--', 'test', '-x', runDir]).status === 0;
  if (reachable) return runDir;
  const root = mkdtempSync(join(tmpdir(), 'gpucp-faults-pg-'));
  chmodSync(root, 0o755); // mkdtemp makes it 0700: `postgres` must get through to its own directories
  return root;
}

function userInfoOf(name) {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${name}:`));
  if (!line) throw new InfraError(`user ${name} does not exist (it comes with the postgresql package)`);
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

export async function startPostgres(pg) {
  execChecked('starting the private PostgreSQL', pg.start);
  await waitUntil(
    `the private PostgreSQL did not accept connections on port ${pg.port}`,
    () => accepts(pg.port),
    30_000,
  );
}

/** Stops the cluster if it runs (immediate mode); fine when it is not running. */
export function stopPostgres(pg) {
  if (!existsSync(join(pg.dataDir, 'postmaster.pid'))) return;
  execChecked('stopping the private PostgreSQL', pg.stop);
}

// ---------------------------------------------------------------------------------------------------------------

/** The control file the tests read (FAULT_INFRA_FILE): everything needed to stop and start both again. */
export function writeControlFile(file, { nats, postgres }) {
  writeFileSync(file, `${JSON.stringify({ nats, postgres }, null, 2)}\n`);
  log(`control file ${file}`);
}
