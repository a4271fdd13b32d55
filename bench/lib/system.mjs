// The system under test, as production runs it: the five built apps (dist/apps/<app>/server.mjs) as separate
// processes on real Postgres and NATS JetStream, with a database and NATS prefix of their own. Plus a second
// gateway with the rate limiter off (the edge scenario's "limiter off" side); the first has it on, as deployed,
// with quotas too large to refuse anything. A scenario may start extra replicas of an app (`startReplica`): same
// environment, database and NATS prefix, a port of their own. BENCH_COMMAND_CONSUMERS=shared|exclusive sets every
// app's COMMAND_CONSUMERS (ADR 13, "Replicas": to compare the two on the replicas scenario).
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { APPS, ROOT } from '../../scripts/lib/infra.mjs';
import { freePorts, startNode, untilReady } from './processes.mjs';

const HUGE_QUOTA = '999999999,999999999,999999999';
const QUOTA_VARIABLES = [
  'RATE_LIMIT_REST',
  'RATE_LIMIT_GRAPHQL',
  'RATE_LIMIT_QUEUE_RUN',
  'RATE_LIMIT_QUEUE_RUNSYNC',
  'RATE_LIMIT_QUEUE_STATUS',
  'RATE_LIMIT_QUEUE_STREAM',
  'RATE_LIMIT_QUEUE_CANCEL',
  'RATE_LIMIT_QUEUE_PURGE_QUEUE',
  'RATE_LIMIT_LB',
];

export const APP_NAMES = APPS.map((app) => app.name);

/** BENCH_CPU_PROF_DIR=<dir>: each app writes a V8 CPU profile there when it stops (profile before optimizing). */
function profileArgs(name, port) {
  const dir = process.env.BENCH_CPU_PROF_DIR;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${name}-${port}.cpuprofile`] : [];
}

export function mainScript(app) {
  return join(ROOT, 'dist', 'apps', app, 'server.mjs');
}

/**
 * Starts the apps (all at once, as `npm start` does) and resolves when every one answers /readyz. `fleetFile` is
 * cluster-scheduler's FLEET_FILE, `podsDir` pod-lifecycle's LOCAL_PODS_DIR (local runtime: catalog images such
 * as gpucp/echo-worker run as child processes, anything else is simulated). `appEnv[name]` adds to an app's
 * environment.
 */
export async function startSystem({ databaseUrl, natsUrl, natsPrefix, fleetFile, podsDir, appEnv = {} }) {
  const names = [...APP_NAMES, 'gateway-nolimit'];
  const free = await freePorts(names.length * 2);
  const ports = Object.fromEntries(names.map((name, i) => [name, free[i]]));
  // /metrics has a port of its own (METRICS_PORT); the gateways' CPU and store figures are read there.
  const metricsPorts = Object.fromEntries(names.map((name, i) => [name, free[names.length + i]]));
  const url = (name) => `http://127.0.0.1:${ports[name]}`;
  const metricsUrl = (name) => `http://127.0.0.1:${metricsPorts[name]}/metrics`;
  const common = {
    DATABASE_URL: databaseUrl,
    NATS_URL: natsUrl,
    NATS_PREFIX: natsPrefix,
    HTTP_HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    REGISTRY_AUTH_KEYS: `k1:${randomBytes(32).toString('base64')}`,
    WORKER_KEY_RING: `w1:${randomBytes(32).toString('base64')}`,
    ...(process.env.BENCH_COMMAND_CONSUMERS
      ? { COMMAND_CONSUMERS: process.env.BENCH_COMMAND_CONSUMERS }
      : {}),
  };
  const quotas = Object.fromEntries(QUOTA_VARIABLES.map((name) => [name, HUGE_QUOTA]));
  const envOf = {
    gateway: { ...common, ...quotas, RATE_LIMITS_ENABLED: 'true' },
    'gateway-nolimit': { ...common, RATE_LIMITS_ENABLED: 'false' },
    'cluster-scheduler': { ...common, FLEET_FILE: fleetFile },
    // Simulated pods (anything not in the local image catalog, e.g. cluster members) stay PROVISIONING for an
    // hour: the placement scenario's clusters cost nothing once created.
    'pod-lifecycle': {
      ...common,
      RUNTIME_DRIVER: 'local',
      LOCAL_PODS_DIR: podsDir,
      SIM_PROVISION_MS: '3600000',
    },
    'queue-broker': common,
    'endpoint-autoscaler': { ...common, QUEUE_PUBLIC_URL: url('gateway') },
  };
  const processes = new Map();
  const spawnApp = (name, env, port, metricsPort) => {
    const app = name === 'gateway-nolimit' ? 'gateway' : name;
    return startNode(name, mainScript(app), {
      nodeArgs: profileArgs(name, port),
      env: {
        ...envOf[name],
        ...appEnv[name],
        ...env,
        HTTP_PORT: String(port),
        METRICS_PORT: String(metricsPort),
      },
    });
  };
  const launch = (name) => {
    const proc = spawnApp(name, {}, ports[name], metricsPorts[name]);
    processes.set(name, proc);
    return proc;
  };
  const replicas = new Set();

  const system = {
    natsPrefix,
    databaseUrl,
    names,
    url,
    metricsUrl,
    /**
     * Stops the app (SIGTERM, waits for the exit), starts it again and waits until /readyz answers 200; returns
     * `{ startMs, stopMs }`: from the spawn to that answer, and how long the graceful stop took.
     */
    async restart(name) {
      const stopping = performance.now();
      await processes.get(name)?.stop();
      const stopMs = performance.now() - stopping;
      const proc = launch(name);
      const readyAt = await untilReady(proc, url(name));
      return { startMs: readyAt - proc.startedAt, stopMs };
    },
    /** The pid of the app's process (its peak RSS is read from /proc/<pid>/status). */
    pid: (name) => processes.get(name)?.pid,
    /**
     * Starts one more replica of `name` (as `name` runs: same environment, database and NATS prefix; `env` adds
     * to it) on a port of its own and resolves once it answers /readyz: `{ name, url, pid, stop() }`. The caller
     * stops it; `system.stop()` stops any still running.
     */
    async startReplica(name, { env = {} } = {}) {
      const [port] = await freePorts(1);
      const proc = spawnApp(name, env, port, 0);
      const replicaUrl = `http://127.0.0.1:${port}`;
      const replica = {
        name: `${name}@${port}`,
        url: replicaUrl,
        pid: proc.pid,
        stop: async () => {
          await proc.stop();
          replicas.delete(replica);
        },
      };
      replicas.add(replica);
      try {
        await untilReady(proc, replicaUrl, { intervalMs: 50 });
      } catch (error) {
        await replica.stop();
        throw error;
      }
      return replica;
    },
    async stop() {
      await Promise.all([...replicas].map((replica) => replica.stop()));
      // The autoscaler and the gateways first, so nothing issues work to apps that are already gone.
      const order = [
        ['endpoint-autoscaler', 'gateway', 'gateway-nolimit'],
        ['queue-broker', 'cluster-scheduler'],
        ['pod-lifecycle'],
      ];
      for (const group of order) await Promise.all(group.map((name) => processes.get(name)?.stop()));
    },
  };

  for (const name of names) launch(name);
  try {
    await Promise.all(names.map((name) => untilReady(processes.get(name), url(name), { intervalMs: 100 })));
  } catch (error) {
    await system.stop();
    throw error;
  }
  return system;
}
