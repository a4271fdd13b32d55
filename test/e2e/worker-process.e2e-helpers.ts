import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../support/paths.js';
import type { JobsSystem } from './jobs.e2e-helpers.js';

export interface WorkerProcess {
  child: ChildProcess;
  id: string;
  output(): string;
  /** Resolves when `text` has appeared in the worker's stdout/stderr. */
  waitFor(text: string, timeoutMs?: number): Promise<void>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Runs an example worker of @app/worker-sdk (`libs/worker-sdk/dist/examples/<name>.worker.js`) for an endpoint. */
export function startWorkerProcess(
  jobs: JobsSystem,
  name: 'echo' | 'stream' | 'sleep' | 'fail',
  id: string,
  options: { endpointId?: string; env?: Record<string, string> } = {},
): WorkerProcess {
  const endpointId = options.endpointId ?? jobs.endpoints.qb;
  const base = `${jobs.gateway}/v2/${endpointId}`;
  const child = spawn(process.execPath, [join(ROOT, 'libs/worker-sdk/dist/examples', `${name}.worker.js`)], {
    env: {
      PATH: process.env.PATH ?? '',
      RUNPOD_WEBHOOK_GET_JOB: `${base}/job-take/$ID?gpu=AMPERE_16`,
      RUNPOD_WEBHOOK_POST_OUTPUT: `${base}/job-done/$RUNPOD_POD_ID/$ID?gpu=AMPERE_16`,
      RUNPOD_WEBHOOK_POST_STREAM: `${base}/job-stream/$RUNPOD_POD_ID/$ID?gpu=AMPERE_16`,
      RUNPOD_WEBHOOK_PING: `${base}/ping/$RUNPOD_POD_ID`,
      RUNPOD_POD_ID: id,
      RUNPOD_AI_API_KEY: jobs.workerKeys[endpointId],
      RUNPOD_ENDPOINT_ID: endpointId,
      RUNPOD_PING_INTERVAL: '1000',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const listeners = new Set<() => void>();
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    for (const l of listeners) l();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    id,
    output: () => output,
    waitFor: (text, timeoutMs = 20_000) =>
      new Promise<void>((resolve, reject) => {
        if (output.includes(text)) return resolve();
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(
            new Error(
              `worker ${id} did not print ${JSON.stringify(text)} within ${timeoutMs} ms:\n${output}`,
            ),
          );
        }, timeoutMs);
        const check = () => {
          if (!output.includes(text)) return;
          clearTimeout(timer);
          listeners.delete(check);
          resolve();
        };
        listeners.add(check);
      }),
    kill: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
