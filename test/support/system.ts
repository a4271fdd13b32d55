import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { APP_NAMES, type AppName } from '@app/contracts';
import { ROOT } from './paths.js';
import { testEnv } from './test-env.js';

/**
 * Runs the built apps (`dist/apps/<app>/server.mjs`, the bundle a deployment runs) as child processes for e2e tests, the way a deployment runs
 * them: one process per app, real Postgres, real NATS, each on a free port of 127.0.0.1 (and /metrics on another).
 *
 *   const db = await createTestDatabase('pods');
 *   const system = await startApps({ databaseUrl: db.url });
 *   ...fetch(`${system.url('gateway')}/v1/...`)...
 *   await system.stop();
 *   await deleteStreams(system.natsPrefix);
 *   await db.drop();
 *
 * Every system gets a NATS prefix of its own (derived from the run's), so systems of different test files never
 * see each other's commands, and `npm test` still deletes whatever a crashed test left behind.
 *
 * An app may run as several replicas (`replicas: { gateway: 2 }`): processes with the same environment, each on a
 * port of its own, as a deployment scales an app out. Methods taking a `replica` index (0-based) act on that one;
 * without it, `kill`, `restart`, `isRunning` and `logs` mean every replica of the app, `url` the first.
 */

/** Values that are `undefined` remove the variable. */
export type EnvOverrides = Record<string, string | undefined>;

export interface StartAppsOptions {
  /** Which apps to run; all five by default. */
  apps?: readonly AppName[];
  databaseUrl: string;
  /** NATS prefix of this system; a fresh one (see `freshNatsPrefix`) by default. */
  natsPrefix?: string;
  /** Extra environment of every app (wins over the defaults). */
  env?: EnvOverrides;
  /** Extra environment of one app (wins over `env`). */
  appEnv?: Partial<Record<AppName, EnvOverrides>>;
  /** Processes of an app (1 by default), all started at once. */
  replicas?: Partial<Record<AppName, number>>;
  /** How long each app may take to answer `GET /readyz` with 200; 30 s by default. */
  readyTimeoutMs?: number;
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface RunningSystem {
  readonly natsPrefix: string;
  readonly databaseUrl: string;
  readonly apps: readonly AppName[];
  /** How many replicas (processes) of the app this system runs. */
  replicas(app: AppName): number;
  /** `http://127.0.0.1:<port>` of the app's replica (the first by default); the same across restarts. */
  url(app: AppName, replica?: number): string;
  /** `http://127.0.0.1:<metrics port>/metrics` of the app's replica (METRICS_PORT, apart from its HTTP port). */
  metricsUrl(app: AppName, replica?: number): string;
  /** The URLs of every replica of the app, in replica order. */
  urls(app: AppName): string[];
  /** Everything the app (or one replica) wrote to stdout and stderr (the last few MB each), across restarts. */
  logs(app: AppName, replica?: number): string;
  /** Whether the replica runs; without `replica`, whether every replica of the app runs. */
  isRunning(app: AppName, replica?: number): boolean;
  /**
   * Sends `signal` (SIGKILL by default) to the replica (every replica without `replica`) and resolves once it has
   * exited (the first replica's exit when it was all of them).
   */
  kill(app: AppName, signal?: NodeJS.Signals, replica?: number): Promise<ExitInfo>;
  /** Sends `signal` to the replica and returns at once: SIGSTOP freezes it (a partition), SIGCONT resumes it. */
  signal(app: AppName, signal: NodeJS.Signals, replica?: number): void;
  /** Resolves when the replica (the first by default) exits by itself; rejects after `timeoutMs`. */
  waitForExit(app: AppName, timeoutMs?: number, replica?: number): Promise<ExitInfo>;
  /**
   * Stops the replica (every replica, one after the other, without `replica`) if it runs (SIGTERM, SIGKILL after
   * 10 s), starts it again on the same port and waits until it is ready. `envOverrides` are applied to its
   * environment and stay for later restarts.
   */
  restart(app: AppName, envOverrides?: EnvOverrides, replica?: number): Promise<void>;
  /** SIGTERM to every app still running, SIGKILL to those not gone after 10 s; resolves when all have exited. */
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 10_000;
const MAX_LOG_CHARS = 4 * 1024 * 1024;
const LAST_LINES = 40;

let systems = 0;

/**
 * `<run prefix>x<random><n>`: letters and digits only (NATS_PREFIX allows nothing else), unique across the jest
 * workers of a run, and still starting with the run's prefix so the run's cleanup finds its streams.
 */
export function freshNatsPrefix(): string {
  const base = testEnv().natsPrefix;
  systems += 1;
  const prefix = `${base}x${randomBytes(3).toString('hex')}${systems}`;
  if (prefix.length > 32) throw new Error(`NATS prefix ${prefix} is longer than 32 characters`);
  return prefix;
}

/** Deletes the JetStream streams (and key-value buckets) of a system's prefix; returns the names deleted. */
export async function deleteStreams(prefix: string): Promise<string[]> {
  const starts = [`${prefix}_`, `KV_${prefix}_`];
  const nc = await connect({ servers: testEnv().natsUrl.split(','), timeout: 5000 });
  const deleted: string[] = [];
  try {
    const jsm = await jetstreamManager(nc, { timeout: 5000 });
    const names: string[] = [];
    for await (const info of jsm.streams.list()) names.push(info.config.name);
    for (const name of names.filter((n) => starts.some((start) => n.startsWith(start)))) {
      await jsm.streams.delete(name);
      deleted.push(name);
    }
  } finally {
    await nc.close();
  }
  return deleted;
}

/**
 * In an env value given to `startApps`, stands for the origin of the (first) gateway the system starts
 * (`http://127.0.0.1:<port>`), whose port is chosen only then: `QUEUE_PUBLIC_URL: GATEWAY_ORIGIN` gives the
 * autoscaler's workers the job routes from the start, where a restart of the autoscaler once the port was known
 * used to cost every such file a stop and a start.
 */
export const GATEWAY_ORIGIN = '{gateway-origin}';

/** A fixed key ring for tests (never used outside them): `k1:` + 32 bytes of base64. */
export const TEST_REGISTRY_AUTH_KEYS = `k1:${Buffer.alloc(32, 7).toString('base64')}`;
/** The workers' key ring for tests: a key id of its own (`w1`), apart from the registry ring's. */
export const TEST_WORKER_KEY_RING = `w1:${Buffer.alloc(32, 9).toString('base64')}`;

/** Starts the requested apps and resolves once every one of them answers `GET /readyz` with 200. */
export async function startApps(options: StartAppsOptions): Promise<RunningSystem> {
  const env = testEnv();
  const apps = [...(options.apps ?? APP_NAMES)];
  for (const app of apps) {
    if (!APP_NAMES.includes(app)) throw new Error(`unknown app ${String(app)}`);
    if (!existsSync(mainScript(app))) {
      throw new Error(`dist/apps/${app}/server.mjs is missing: run \`npm run build\` first (npm test does)`);
    }
  }
  if (new Set(apps).size !== apps.length) throw new Error(`an app is listed twice: ${apps.join(', ')}`);
  const natsPrefix = options.natsPrefix ?? freshNatsPrefix();
  const readyTimeoutMs = options.readyTimeoutMs ?? READY_TIMEOUT_MS;
  const counts = apps.map((app) => options.replicas?.[app] ?? 1);
  for (const [i, count] of counts.entries()) {
    if (!Number.isInteger(count) || count < 1) throw new Error(`replicas of ${apps[i]}: ${count}`);
  }
  const total = counts.reduce((a, b) => a + b, 0);
  const allPorts = await freePorts(total * 2);
  const ports = allPorts.slice(0, total);
  const metricsPorts = allPorts.slice(total);

  const gatewayIndex = apps.indexOf('gateway');
  const gatewayOrigin =
    gatewayIndex < 0
      ? null
      : `http://127.0.0.1:${ports[counts.slice(0, gatewayIndex).reduce((a, b) => a + b, 0)]}`;
  const withGatewayOrigin = (values: Record<string, string>): Record<string, string> =>
    Object.fromEntries(
      Object.entries(values).map(([name, value]) => {
        if (value !== GATEWAY_ORIGIN) return [name, value];
        if (!gatewayOrigin) throw new Error(`${name}: GATEWAY_ORIGIN without a gateway in the system`);
        return [name, gatewayOrigin];
      }),
    );

  const processes = new Map<AppName, AppProcess[]>();
  apps.forEach((app, i) => {
    const baseEnv = withGatewayOrigin(
      withoutUndefined({
        ...inheritedEnv(),
        DATABASE_URL: options.databaseUrl,
        NATS_URL: env.natsUrl,
        NATS_PREFIX: natsPrefix,
        HTTP_HOST: '127.0.0.1',
        LOG_LEVEL: env.logLevel,
        NODE_ENV: 'test',
        REGISTRY_AUTH_KEYS: TEST_REGISTRY_AUTH_KEYS,
        WORKER_KEY_RING: TEST_WORKER_KEY_RING,
        // Tests poll and burst; they get quotas they never reach unless a test sets its own.
        RATE_LIMIT_REST: '100000,1000000,10000000',
        RATE_LIMIT_GRAPHQL: '100000,1000000,10000000',
        ...options.env,
        ...options.appEnv?.[app],
      }),
    );
    const first = counts.slice(0, i).reduce((a, b) => a + b, 0);
    const replicas = Array.from({ length: counts[i] }, (_, r) => {
      const label = counts[i] > 1 ? `${app}#${r + 1}` : app;
      const port = ports[first + r];
      const metricsPort = metricsPorts[first + r];
      return new AppProcess(label, port, metricsPort, {
        ...baseEnv,
        HTTP_PORT: String(port),
        METRICS_PORT: String(metricsPort),
      });
    });
    processes.set(app, replicas);
  });

  const all = (): AppProcess[] => [...processes.values()].flat();
  const replicasOf = (app: AppName): AppProcess[] => {
    const procs = processes.get(app);
    if (!procs) throw new Error(`${app} is not part of this system (it runs ${apps.join(', ')})`);
    return procs;
  };
  const get = (app: AppName, replica = 0): AppProcess => {
    const proc = replicasOf(app)[replica];
    if (!proc) throw new Error(`${app} has no replica ${replica} (it runs ${replicasOf(app).length})`);
    return proc;
  };
  const pick = (app: AppName, replica?: number): AppProcess[] =>
    replica === undefined ? replicasOf(app) : [get(app, replica)];
  const stop = async () => {
    await Promise.all(all().map((p) => p.stop()));
  };

  for (const proc of all()) proc.start();
  const results = await Promise.allSettled(all().map((p) => p.waitReady(readyTimeoutMs)));
  const failures = results.flatMap((r) => (r.status === 'rejected' ? [(r.reason as Error).message] : []));
  if (failures.length > 0) {
    await stop();
    // The caller never gets a handle to clean up with: remove the streams of a prefix nobody else knows.
    if (options.natsPrefix === undefined) await deleteStreams(natsPrefix).catch(() => undefined);
    throw new Error(`the system did not start (NATS prefix ${natsPrefix}):\n\n${failures.join('\n\n')}`);
  }

  return {
    natsPrefix,
    databaseUrl: options.databaseUrl,
    apps,
    replicas: (app) => replicasOf(app).length,
    url: (app, replica = 0) => get(app, replica).url,
    metricsUrl: (app, replica = 0) => get(app, replica).metricsUrl,
    urls: (app) => replicasOf(app).map((p) => p.url),
    logs: (app, replica) =>
      pick(app, replica)
        .map((p, _, list) => (list.length > 1 ? `===== ${p.app} =====\n${p.logs()}` : p.logs()))
        .join('\n'),
    isRunning: (app, replica) => pick(app, replica).every((p) => p.isRunning()),
    kill: async (app, signal = 'SIGKILL', replica) => {
      const exits = await Promise.all(pick(app, replica).map((p) => p.kill(signal)));
      return exits[0];
    },
    signal: (app, signal, replica) => pick(app, replica).forEach((p) => p.signal(signal)),
    waitForExit: (app, timeoutMs = READY_TIMEOUT_MS, replica = 0) => get(app, replica).waitForExit(timeoutMs),
    restart: async (app, envOverrides = {}, replica) => {
      for (const proc of pick(app, replica)) {
        await proc.stop();
        proc.setEnv(envOverrides);
        proc.start();
        try {
          await proc.waitReady(readyTimeoutMs);
        } catch (error) {
          await proc.stop();
          throw error;
        }
      }
    },
    stop,
  };
}

/** One app's child process (one replica), restartable, with its output kept in memory. */
class AppProcess {
  readonly url: string;
  readonly metricsUrl: string;
  private child?: ChildProcess;
  private exited: Promise<ExitInfo> = Promise.resolve({ code: null, signal: null });
  private running = false;
  private output = '';
  private starts = 0;
  private readonly script: string;

  constructor(
    /** The app's name, `<app>#<n>` when it runs as replicas (for messages). */
    readonly app: string,
    readonly port: number,
    metricsPort: number,
    private env: Record<string, string>,
  ) {
    this.url = `http://127.0.0.1:${port}`;
    this.metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    this.script = mainScript(app.split('#')[0] as AppName);
  }

  setEnv(overrides: EnvOverrides): void {
    this.env = withoutUndefined({ ...this.env, ...overrides });
  }

  start(): void {
    if (this.running) throw new Error(`${this.app} is already running`);
    this.starts += 1;
    if (this.starts > 1) this.append(`\n----- ${this.app} restarted (start ${this.starts}) -----\n`);
    const child = spawn(process.execPath, [this.script], {
      cwd: ROOT,
      env: this.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    this.running = true;
    child.stdout?.on('data', (chunk: Buffer) => this.append(chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => this.append(chunk.toString()));
    this.exited = new Promise<ExitInfo>((resolve) => {
      child.once('exit', (code, signal) => {
        this.running = false;
        resolve({ code, signal });
      });
      child.once('error', (error) => {
        this.append(`\n[test harness] could not start ${this.app}: ${error.message}\n`);
        this.running = false;
        resolve({ code: null, signal: null });
      });
    });
  }

  isRunning(): boolean {
    return this.running;
  }

  logs(): string {
    return this.output;
  }

  lastLines(count = LAST_LINES): string {
    const lines = this.output.trimEnd().split('\n');
    return lines.slice(-count).join('\n') || '(no output)';
  }

  async waitReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const exited = this.exited.then((info) => ({ exited: info }));
    let last = 'no answer yet';
    while (Date.now() < deadline) {
      if (!this.running) {
        const info = await this.exited;
        throw new Error(
          `${this.app} ${describeExit(info)} before it was ready; its last output:\n${this.lastLines()}`,
        );
      }
      try {
        const response = await fetch(`${this.url}/readyz`, { signal: AbortSignal.timeout(2000) });
        const body = await response.text();
        if (response.status === 200) return;
        last = `${response.status} ${body.slice(0, 300)}`;
      } catch (error) {
        last = (error as Error).message;
      }
      await Promise.race([sleep(100), exited]);
    }
    throw new Error(
      `${this.app} was not ready within ${Math.round(timeoutMs / 1000)} s ` +
        `(last GET ${this.url}/readyz: ${last}); its last output:\n${this.lastLines()}`,
    );
  }

  signal(signal: NodeJS.Signals): void {
    if (this.running) this.child?.kill(signal);
  }

  async kill(signal: NodeJS.Signals): Promise<ExitInfo> {
    if (this.running) this.child?.kill(signal);
    return this.exited;
  }

  async waitForExit(timeoutMs: number): Promise<ExitInfo> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new Error(
              `${this.app} did not exit within ${timeoutMs} ms; its last output:\n${this.lastLines()}`,
            ),
          ),
        timeoutMs,
      );
    });
    try {
      return await Promise.race([this.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.child?.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const killLater = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.append(
          `\n[test harness] ${this.app} still running ${STOP_GRACE_MS} ms after SIGTERM: SIGKILL\n`,
        );
        this.child?.kill('SIGKILL');
        resolve();
      }, STOP_GRACE_MS);
    });
    try {
      await Promise.race([this.exited, killLater]);
      await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  private append(text: string): void {
    this.output += text;
    if (this.output.length > MAX_LOG_CHARS) this.output = this.output.slice(-MAX_LOG_CHARS / 2);
  }
}

function mainScript(app: AppName): string {
  return join(ROOT, 'dist', 'apps', app, 'server.mjs');
}

/** What the apps get from the test process: enough to run, and none of its configuration or jest's flags. */
function inheritedEnv(): EnvOverrides {
  const keep = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ'];
  return Object.fromEntries(keep.map((name) => [name, process.env[name]]));
}

function withoutUndefined(env: EnvOverrides): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

function describeExit(info: ExitInfo): string {
  if (info.signal) return `was killed by ${info.signal}`;
  if (info.code !== null) return `exited with code ${info.code}`;
  return 'could not be started';
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Where freePorts looks: below Linux's ephemeral range (32768–60999), in a block of its own for each jest worker.
 * A port found free is released before the app listens on it, and in that moment a port of the ephemeral range can
 * be taken by any process's `connect()` or `listen(0)`, another jest worker's among them (seen with three workers:
 * an app's EADDRINUSE). Below that range only our own choices land, and each worker chooses in its own block.
 */
const PORT_BASE = 12_000;
const PORT_BLOCK = 1_000;
const PORT_BLOCKS = 20; // 12000–31999
const portBlock = PORT_BASE + ((Number(process.env.JEST_WORKER_ID ?? 1) - 1) % PORT_BLOCKS) * PORT_BLOCK;
/** Where the next search starts in the block: random, so that files run one after another do not reuse ports. */
let nextPort = randomInt(PORT_BLOCK);

/** Listens on `port` of 127.0.0.1; the server, or null if the port is taken. */
function holdPort(port: number): Promise<Server | null> {
  const server = createServer();
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EADDRINUSE' || error.code === 'EACCES' ? resolve(null) : reject(error),
    );
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

/**
 * Distinct free ports of 127.0.0.1 in this worker's block: each is listened on and released only once all are
 * found.
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    const ports: number[] = [];
    for (let tried = 0; ports.length < count; tried++) {
      if (tried >= PORT_BLOCK) {
        throw new Error(`no ${count} free ports in ${portBlock}–${portBlock + PORT_BLOCK - 1}`);
      }
      const port = portBlock + (nextPort++ % PORT_BLOCK);
      const server = await holdPort(port);
      if (!server) continue;
      servers.push(server);
      ports.push(port);
    }
    return ports;
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
}
