import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { APP_NAMES, type AppName } from '@app/contracts';
import {
  AppProcess,
  inheritedEnv,
  mainScript,
  withoutUndefined,
  type EnvOverrides,
  type ExitInfo,
} from './app-process.js';
import { freePorts } from './ports.js';
import { testEnv } from './test-env.js';
import { rememberSystemPrefix } from './system-prefixes.js';

export type { EnvOverrides, ExitInfo } from './app-process.js';
export { freePorts } from './ports.js';

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
  rememberSystemPrefix(options.databaseUrl, natsPrefix);
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
        // The machine's Postgres allows 100 connections for the run's test files side by side: a whole system of
        // five apps (a gateway or two more) opening 10 each left too few for the file next to it.
        DATABASE_POOL_SIZE: '7',
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
