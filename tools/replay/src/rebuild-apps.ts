import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { AppName } from '@app/contracts';

/** The apps that own command domains, and the gateway, which keeps the audit trail: the ones a rebuild runs. */
export const OWNER_APPS: readonly AppName[] = [
  'gateway',
  'cluster-scheduler',
  'pod-lifecycle',
  'queue-broker',
  'endpoint-autoscaler',
];

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface RunningApp {
  stop(): Promise<void>;
}

/** The app as `npm start` runs it (its bundle, scripts/bundle-apps.mjs), or its migrations. */
function appScript(app: AppName, file: 'server.mjs' | 'migrate.mjs'): string {
  const script = `${ROOT}dist/apps/${app}/${file}`;
  if (!existsSync(script)) throw new Error(`${script} is missing: run \`npm run build\` first`);
  return script;
}

export function migrate(app: AppName, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [appScript(app, 'migrate.mjs')], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`migrations of ${app} failed (exit ${code}): ${stderr.trim()}`)),
    );
  });
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export async function startApp(
  app: AppName,
  env: NodeJS.ProcessEnv,
  spawned: (running: RunningApp) => void,
  signal?: AbortSignal,
): Promise<void> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [appScript(app, 'server.mjs')], {
    // METRICS_PORT 0: any free port, so a rebuild never collides with the deployment's own listeners.
    env: { ...env, HTTP_PORT: String(port), HTTP_HOST: '127.0.0.1', METRICS_PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  let exited: number | null | undefined;
  const gone = new Promise<void>((resolve) =>
    child.on('exit', (code) => {
      exited = code;
      resolve();
    }),
  );
  spawned({
    stop: async () => {
      if (exited !== undefined) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await gone;
      clearTimeout(timer);
    },
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    signal?.throwIfAborted();
    if (exited !== undefined) {
      throw new Error(`${app} exited (code ${exited}) while starting: ${output.trim()}`);
    }
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${app} was not ready within 60 s: ${output.trim()}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
