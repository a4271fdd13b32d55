import { execFile, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * Stops and starts the private nats-server and PostgreSQL cluster that `npm run test:faults`
 * (scripts/test-faults.mjs) started for this run. The runner writes how to do it, the very command lines it used
 * (scripts/lib/private-infra.mjs), into the control file named by FAULT_INFRA_FILE; nothing here ever touches the
 * machine's shared services.
 */
interface NatsControl {
  url: string;
  port: number;
  command: string;
  args: string[];
  pidFile: string;
  logFile: string;
}

interface PostgresControl {
  adminUrl: string;
  port: number;
  dataDir: string;
  start: string[];
  stop: string[];
}

interface ControlFile {
  nats: NatsControl;
  postgres: PostgresControl;
}

const exec = promisify(execFile);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

let cached: ControlFile | undefined;

function control(): ControlFile {
  if (cached) return cached;
  const file = process.env.FAULT_INFRA_FILE;
  if (!file || !existsSync(file)) {
    throw new Error(
      'FAULT_INFRA_FILE is not set or missing: run the fault suite with `npm run test:faults` ' +
        '(it starts the private NATS and Postgres these tests stop and start)',
    );
  }
  cached = JSON.parse(readFileSync(file, 'utf8')) as ControlFile;
  return cached;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port, timeout: 1000 });
    const done = (result: boolean) => {
      socket.destroy();
      resolve(result);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function natsPid(): number | null {
  const file = control().nats.pidFile;
  if (!existsSync(file)) return null;
  const pid = Number.parseInt(readFileSync(file, 'utf8'), 10);
  return Number.isInteger(pid) && pid > 0 && alive(pid) ? pid : null;
}

async function waitFor(what: string, check: () => Promise<boolean> | boolean, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(50);
  }
  throw new Error(`${what} within ${timeoutMs} ms`);
}

export const privateNats = {
  get url(): string {
    return control().nats.url;
  },
  isRunning(): boolean {
    return natsPid() !== null;
  },
  /** Sends `signal` (SIGKILL by default) to the server and resolves once it is gone. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const pid = natsPid();
    if (pid === null) throw new Error('the private nats-server is not running');
    process.kill(pid, signal);
    await waitFor('the private nats-server did not exit', () => !alive(pid), 15_000);
  },
  /** Starts the server again as the runner did (same port, same store) and waits until it accepts connections. */
  async start(): Promise<void> {
    const nats = control().nats;
    if (natsPid() !== null) throw new Error('the private nats-server is already running');
    const fd = openSync(nats.logFile, 'a');
    try {
      spawn(nats.command, nats.args, { detached: true, stdio: ['ignore', fd, fd] }).unref();
    } finally {
      closeSync(fd);
    }
    await waitFor(
      `the private nats-server did not accept connections on port ${nats.port}`,
      () => accepts(nats.port),
      20_000,
    );
  },
};

export const privatePostgres = {
  get adminUrl(): string {
    return control().postgres.adminUrl;
  },
  isRunning(): boolean {
    return existsSync(join(control().postgres.dataDir, 'postmaster.pid'));
  },
  /** `pg_ctl stop -m immediate`: every connection is dropped at once; the next start runs crash recovery. */
  async stop(): Promise<void> {
    const [command, ...args] = control().postgres.stop;
    await exec(command, args);
  },
  /** `pg_ctl start -w` with the runner's options; resolves once the server accepts connections. */
  async start(): Promise<void> {
    const pg = control().postgres;
    const [command, ...args] = pg.start;
    await exec(command, args);
    await waitFor(
      `the private PostgreSQL did not accept connections on port ${pg.port}`,
      () => accepts(pg.port),
      30_000,
    );
  },
};

/** The nats-server binary the runner started the private server with (for servers a scenario runs itself). */
export function natsServerCommand(): string {
  return control().nats.command;
}
