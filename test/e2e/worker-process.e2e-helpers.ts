import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { watchOutput } from '../support/child-output.js';
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
  const watched = watchOutput(child, `worker ${id}`);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    id,
    output: () => watched.output(),
    waitFor: (text, timeoutMs = 20_000) => watched.waitFor(text, timeoutMs),
    kill: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
