// `npm start`: installs dependencies, builds, makes sure PostgreSQL and NATS JetStream are up (starting or
// installing them locally when it can), migrates, creates the bootstrap API key, then runs the five apps with
// prefixed output until Ctrl-C. Environment: DATABASE_URL (or DATABASE_NAME on the local server, default gpucp),
// NATS_URL, NATS_PREFIX (default gpucp), PORT_BASE (default 8080; the apps take five consecutive ports, their
// /metrics listeners the five from PORT_BASE + 1000), NODE_ENV. The box at the end shows what each app really bound
// (from its "listening on" log line): the gateway every interface, the others and /metrics loopback by default.
// An app's HTTP_HOST / METRICS_HOST may be set in the environment as for any app (.env.example).
// `npm start -- --replicas 2` (or REPLICAS=2) runs two processes of every app, as a deployment does: replica r of
// the app at PORT_BASE + i listens on PORT_BASE + 5·r + i. pod-lifecycle's `local` runtime is one process's child
// processes, so with replicas the runtime is `simulated` unless RUNTIME_DRIVER says otherwise (docs/adr/0018).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import {
  APPS,
  InfraError,
  LOCAL_DIR,
  ROOT,
  build,
  capture,
  ensureAppDatabase,
  ensureDependencies,
  ensureNats,
  log,
  paint,
  runMain,
  runMigrations,
  step,
  waitForReady,
} from './lib/infra.mjs';
import { boundFrom, printBox } from './lib/ready-box.mjs';

const KEY_FILE = join(LOCAL_DIR, 'bootstrap-key');
const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 15_000;
const LAST_LINES = 30;
const LABEL_COLORS = ['cyan', 'magenta', 'yellow', 'blue', 'green'];
/** Each app's /metrics port is its HTTP port + 1000 (the apps' defaults: 9080-9084). */
const METRICS_PORT_OFFSET = 1000;

runMain(async () => {
  const replicas = replicasFromArgs();
  const portBase = portBaseFromEnv(replicas);
  const runtime = runtimeFor(replicas);
  await step('dependencies', ensureDependencies);
  await step('build', build);
  const databaseUrl = await step('postgres', ensureAppDatabase);
  const natsUrl = await step('nats', () => ensureNats());
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    NATS_URL: natsUrl,
    NATS_PREFIX: process.env.NATS_PREFIX ?? 'gpucp',
    NODE_ENV: process.env.NODE_ENV ?? 'development',
    REGISTRY_AUTH_KEYS:
      process.env.REGISTRY_AUTH_KEYS ?? localKeyRing('registry-auth-keys', 'k1', 'registry-credential'),
    WORKER_KEY_RING: process.env.WORKER_KEY_RING ?? localKeyRing('worker-key-ring', 'w1', 'worker-key'),
    ...runtime,
  };
  await step('migrate', () => runMigrations(env));
  const key = await step('bootstrap key', () => bootstrapKey(env));

  console.log(paint('==> apps', 'bold'));
  const apps = Array.from({ length: replicas }, (_, r) =>
    APPS.map((app, i) => {
      const port = portBase + r * APPS.length + (app.port - APPS[0].port);
      const metricsPort = port + METRICS_PORT_OFFSET;
      return {
        ...app,
        label: replicas > 1 ? `${app.name}#${r + 1}` : app.name,
        port,
        metricsPort,
        url: `http://127.0.0.1:${port}`,
        color: LABEL_COLORS[i % LABEL_COLORS.length],
      };
    }),
  ).flat();
  const supervisor = supervise(apps, env);
  const outcome = await supervisor.waitUntilReady();
  if (supervisor.stopping) return; // a signal arrived; the shutdown exits the process
  if (outcome.exited) {
    const app = outcome.exited;
    console.error(paint(`${app.label} ${describeExit(app)} before it was ready; its last output:`, 'red'));
    for (const line of app.recent) console.error(`    ${line}`);
  } else if (outcome.error) {
    const late = supervisor.apps.filter((app) => !app.ready).map((app) => app.label);
    console.error(paint(`not ready within ${READY_TIMEOUT_MS / 1000} s: ${late.join(', ')}`, 'red'));
  }
  if (!outcome.ok) {
    await supervisor.stopAll();
    return 1;
  }
  supervisor.reportCrashes();
  printBox(supervisor.apps, key);
});

/** `--replicas N` / `--replicas=N`, else REPLICAS, else 1: how many processes of each app. */
function replicasFromArgs() {
  let values;
  try {
    ({ values } = parseArgs({ options: { replicas: { type: 'string' } }, strict: true }));
  } catch (error) {
    throw new InfraError(`${error.message} (npm start takes --replicas N)`);
  }
  const raw = values.replicas ?? process.env.REPLICAS ?? '1';
  const replicas = Number(raw);
  if (!Number.isInteger(replicas) || replicas < 1 || replicas > 8) {
    throw new InfraError(`--replicas (or REPLICAS) must be a whole number from 1 to 8, got ${raw}`);
  }
  return replicas;
}

/** The pod runtime: as configured, except that replicas cannot share the local runtime's child processes. */
function runtimeFor(replicas) {
  if (replicas === 1) return {};
  if (process.env.RUNTIME_DRIVER === 'local') {
    throw new InfraError(
      'RUNTIME_DRIVER=local runs pods as child processes of one pod-lifecycle process, so it cannot run with ' +
        '--replicas: drop --replicas, or use RUNTIME_DRIVER=simulated (or kubernetes)',
    );
  }
  if (process.env.RUNTIME_DRIVER) return {};
  log(`${replicas} replicas of each app: pods run on the simulated runtime (RUNTIME_DRIVER=simulated)`);
  return { RUNTIME_DRIVER: 'simulated' };
}

function portBaseFromEnv(replicas) {
  const portBase = Number(process.env.PORT_BASE ?? 8080);
  const span = replicas * APPS.length;
  if (!Number.isInteger(portBase) || portBase < 1 || portBase > 65535 - span - METRICS_PORT_OFFSET) {
    throw new InfraError(`PORT_BASE must be a port number, got ${process.env.PORT_BASE}`);
  }
  return portBase;
}

/**
 * A key ring (REGISTRY_AUTH_KEYS, WORKER_KEY_RING) not set in the environment: one generated on the first local
 * start and kept in .local/<file> (mode 0600), so what it sealed stays readable across restarts. Each ring has its
 * own key id, since the id a sealed value names picks the ring that opens it (ADR 30).
 */
function localKeyRing(name, kid, what) {
  const file = join(LOCAL_DIR, name);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const ring = `${kid}:${randomBytes(32).toString('base64')}`;
  mkdirSync(LOCAL_DIR, { recursive: true });
  writeFileSync(file, `${ring}\n`, { mode: 0o600 });
  log(`generated a ${what} key ring (saved to .local/${name})`);
  return ring;
}

/** Creates the first admin API key once; later starts print the copy kept in .local/bootstrap-key. */
async function bootstrapKey(env) {
  const cli = join('dist', 'apps', 'gateway', 'cli', 'keys.mjs');
  const { code, stdout } = await capture(process.execPath, [cli, 'bootstrap', '--json'], { env });
  if (code !== 0) throw new InfraError(`creating the bootstrap API key failed (${cli} exited with ${code})`);
  let result;
  try {
    result = JSON.parse(stdout.trim().split('\n').at(-1));
  } catch {
    throw new InfraError(`${cli} bootstrap --json did not print a JSON line`);
  }
  if (result.created) {
    mkdirSync(LOCAL_DIR, { recursive: true });
    writeFileSync(KEY_FILE, `${result.key}\n`, { mode: 0o600 });
    chmodSync(KEY_FILE, 0o600);
    log('created the bootstrap API key (saved to .local/bootstrap-key)');
    return result.key;
  }
  if (existsSync(KEY_FILE)) {
    log('bootstrap API key exists (read from .local/bootstrap-key)');
    return readFileSync(KEY_FILE, 'utf8').trim();
  }
  log('a bootstrap API key exists, but .local/bootstrap-key (its only copy) is missing');
  return undefined;
}

/** Spawns the apps and owns them: prefixed output, readiness, crash reports and shutdown on signals. */
function supervise(appList, env) {
  const width = Math.max(...appList.map((app) => app.label.length)) + 2;
  const apps = appList.map((app) => spawnApp(app, env, width));
  const supervisor = {
    apps,
    stopping: false,
    waitUntilReady: () => waitUntilReady(apps),
    stopAll: () => stopAll(apps),
    reportCrashes() {
      for (const app of apps) {
        app.closed.then(() => {
          if (supervisor.stopping) return;
          console.error(
            paint(
              `${app.label} ${describeExit(app)}; the other apps keep running (restart npm start to bring it back)`,
              'red',
            ),
          );
          if (apps.every((other) => other.exit)) {
            console.error(paint('every app has exited', 'red'));
            process.exit(1);
          }
        });
      }
    },
  };
  const onSignal = (signal) => {
    if (supervisor.stopping) {
      console.error(paint(`${signal} again: killing the apps`, 'red'));
      process.exit(1); // the exit hook below SIGKILLs whatever is left
    }
    supervisor.stopping = true;
    console.log(paint(`\n${signal}: stopping the apps (up to ${STOP_TIMEOUT_MS / 1000} s)…`, 'bold'));
    stopAll(apps).then(() => process.exit(0));
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, onSignal);
  process.on('exit', () => apps.forEach((app) => kill(app, 'SIGKILL')));
  return supervisor;
}

function spawnApp(app, env, width) {
  // Own process group, so a terminal Ctrl-C reaches only this script, which then stops the apps in order.
  const child = spawn(process.execPath, [join('dist', 'apps', app.name, 'server.mjs')], {
    cwd: ROOT,
    env: { ...env, HTTP_PORT: String(app.port), METRICS_PORT: String(app.metricsPort) },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const label = paint(`[${app.label}]`.padEnd(width), app.color);
  const running = { ...app, child, recent: [], ready: false, exit: undefined, bound: undefined };
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
      running.bound ??= boundFrom(line);
      running.recent.push(line);
      if (running.recent.length > LAST_LINES) running.recent.shift();
      process.stdout.write(`${label} ${line}\n`);
    });
  }
  running.closed = new Promise((resolve) => {
    child.on('close', (code, signal) => resolve((running.exit ??= { code, signal })));
    child.on('error', (error) => resolve((running.exit ??= { error })));
  });
  return running;
}

async function waitUntilReady(apps) {
  const controller = new AbortController();
  const ready = Promise.all(
    apps.map((app) =>
      waitForReady(app.url, READY_TIMEOUT_MS, { signal: controller.signal }).then(() => {
        app.ready = true;
      }),
    ),
  ).then(
    () => ({ ok: true }),
    (error) => ({ error }),
  );
  const exited = Promise.race(apps.map((app) => app.closed.then(() => ({ exited: app }))));
  const outcome = await Promise.race([ready, exited]);
  controller.abort();
  return outcome;
}

function kill(app, signal) {
  if (!app.exit && app.child.pid) app.child.kill(signal);
}

async function stopAll(apps) {
  apps.forEach((app) => kill(app, 'SIGTERM'));
  const timer = setTimeout(() => {
    const stuck = apps.filter((app) => !app.exit);
    console.error(
      paint(
        `still running after ${STOP_TIMEOUT_MS / 1000} s, killing: ${stuck.map((a) => a.label).join(', ')}`,
        'red',
      ),
    );
    stuck.forEach((app) => kill(app, 'SIGKILL'));
  }, STOP_TIMEOUT_MS);
  await Promise.all(apps.map((app) => app.closed));
  clearTimeout(timer);
}

function describeExit({ exit }) {
  if (exit.error) return `could not start (${exit.error.message})`;
  return exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
}
