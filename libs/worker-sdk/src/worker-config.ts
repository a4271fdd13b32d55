/**
 * The worker's settings, read once from the environment the platform injects (compatibility.md §2) — the same
 * variables the stock Python SDK (`runpod.serverless.start`) reads.
 */
export interface WorkerConfig {
  /** `.../job-take/$ID?gpu=..` with `$ID` already replaced by the worker id. */
  takeUrl: string;
  /** `.../job-done/<pod>/$ID?gpu=..`: `$ID` is the job id. */
  doneUrlTemplate: string;
  streamUrlTemplate: string;
  pingUrl: string;
  stopUrl: string;
  workerId: string;
  apiKey: string;
  endpointId: string;
  pingIntervalMs: number;
  /** `WORKER_CONCURRENCY` (default 1): jobs run at once unless `startWorker` is given `concurrency`. */
  concurrency: number;
}

export class WorkerConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkerConfigError';
  }
}

function required(env: Record<string, string | undefined>, name: string): string {
  const value = env[name];
  if (!value) {
    throw new WorkerConfigError(`worker: ${name} is not set (the platform injects it into worker pods)`);
  }
  return value;
}

export function readWorkerConfig(env: Record<string, string | undefined> = process.env): WorkerConfig {
  const workerId = required(env, 'RUNPOD_POD_ID');
  const take = required(env, 'RUNPOD_WEBHOOK_GET_JOB');
  const done = required(env, 'RUNPOD_WEBHOOK_POST_OUTPUT');
  const stream = env.RUNPOD_WEBHOOK_POST_STREAM || done.replace('/job-done/', '/job-stream/');
  const ping = required(env, 'RUNPOD_WEBHOOK_PING');
  const interval = Number(env.RUNPOD_PING_INTERVAL || 10_000);
  if (!Number.isFinite(interval) || interval < 100) {
    throw new WorkerConfigError(
      `worker: RUNPOD_PING_INTERVAL=${env.RUNPOD_PING_INTERVAL} must be milliseconds >= 100`,
    );
  }
  const takeUrl = take.replaceAll('$ID', workerId);
  const endpointId = env.RUNPOD_ENDPOINT_ID || (/\/v2\/([^/]+)\/job-take\//.exec(takeUrl)?.[1] ?? '');
  return {
    takeUrl,
    doneUrlTemplate: done.replaceAll('$RUNPOD_POD_ID', workerId),
    streamUrlTemplate: stream.replaceAll('$RUNPOD_POD_ID', workerId),
    pingUrl: ping.replaceAll('$RUNPOD_POD_ID', workerId),
    stopUrl: takeUrl.replace('/job-take/', '/job-stop/'),
    workerId,
    apiKey: required(env, 'RUNPOD_AI_API_KEY'),
    endpointId,
    pingIntervalMs: interval,
    concurrency: Math.max(1, Math.floor(Number(env.WORKER_CONCURRENCY || 1)) || 1),
  };
}
