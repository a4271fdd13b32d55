import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { startWorker, type RunningWorker } from '@app/worker-sdk';
import { watchOutput } from '../../support/child-output.js';
import { ROOT } from '../../support/paths.js';
import type { FaultSystem } from './fault-system.js';

// ---------------------------------------------------------------------------------------------------------------
// Workers

/** The RunPod worker environment (compatibility.md §2) of a worker of `endpointId` talking to `gateway`. */
export function runpodWorkerEnv(
  gateway: string,
  endpointId: string,
  workerId: string,
  key: string,
  gpu = 'AMPERE_16',
): Record<string, string> {
  const base = `${gateway}/v2/${endpointId}`;
  return {
    RUNPOD_WEBHOOK_GET_JOB: `${base}/job-take/$ID?gpu=${gpu}`,
    RUNPOD_WEBHOOK_POST_OUTPUT: `${base}/job-done/$RUNPOD_POD_ID/$ID?gpu=${gpu}`,
    RUNPOD_WEBHOOK_POST_STREAM: `${base}/job-stream/$RUNPOD_POD_ID/$ID?gpu=${gpu}`,
    RUNPOD_WEBHOOK_PING: `${base}/ping/$RUNPOD_POD_ID`,
    RUNPOD_POD_ID: workerId,
    RUNPOD_AI_API_KEY: key,
    RUNPOD_ENDPOINT_ID: endpointId,
    RUNPOD_PING_INTERVAL: '1000',
  };
}

function workerEnv(
  fs: FaultSystem,
  endpointId: string,
  workerId: string,
  gateway = fs.gateway,
): Record<string, string> {
  return runpodWorkerEnv(gateway, endpointId, workerId, fs.workerKeys[endpointId]);
}

/**
 * Workers of @app/worker-sdk running in the test process, answering every job with its input and recording
 * every job their handler ran (a job run twice after a lost lease shows up here, whatever the broker accepted).
 * With several gateway replicas, worker n talks to gateway n mod replicas.
 */
export class RecordingWorkers {
  /** Job id → how many times a handler of these workers ran it. */
  readonly runs = new Map<string, number>();
  private readonly workers: RunningWorker[] = [];

  constructor(fs: FaultSystem, endpointId: string, count: number, concurrency: number) {
    for (let n = 1; n <= count; n++) {
      this.workers.push(
        startWorker({
          env: workerEnv(fs, endpointId, `${endpointId}-w${n}`, fs.gateways[(n - 1) % fs.gateways.length]),
          concurrency,
          exitOnSignal: false,
          shutdownGraceMs: 2000,
          log: () => undefined,
          handler: (job) => {
            this.runs.set(job.id, (this.runs.get(job.id) ?? 0) + 1);
            return job.input;
          },
        }),
      );
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.stop()));
  }
}

export interface WorkerChild {
  id: string;
  child: ChildProcess;
  output(): string;
  waitFor(text: string, timeoutMs?: number): Promise<void>;
  exited: Promise<void>;
  kill(signal?: NodeJS.Signals): void;
}

/**
 * A worker process: an example worker of @app/worker-sdk (`libs/worker-sdk/dist/examples/<name>.worker.js`) or a
 * script of test/faults/support/ (`<name>.mjs`).
 */
export function startWorkerChild(
  fs: FaultSystem,
  script: 'sleep' | 'crash-worker',
  endpointId: string,
  workerId: string,
  env: Record<string, string> = {},
): WorkerChild {
  const path =
    script === 'sleep'
      ? join(ROOT, 'libs/worker-sdk/dist/examples/sleep.worker.js')
      : join(ROOT, 'test/faults/support', `${script}.mjs`);
  const child = spawn(process.execPath, [path], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...workerEnv(fs, endpointId, workerId), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const watched = watchOutput(child, `worker ${workerId}`);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    id: workerId,
    child,
    output: () => watched.output(),
    exited,
    waitFor: (text, timeoutMs = 30_000) => watched.waitFor(text, timeoutMs),
    kill: (signal = 'SIGKILL') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
}
