import { hostname } from 'node:os';
import { setImmediate } from 'node:timers/promises';
import { PlatformCalls, SDK_VERSION, sleep } from './platform-calls.js';
import { readWorkerConfig, type WorkerConfig } from './worker-config.js';

export { SDK_VERSION };

/** One job as the handler sees it. */
export interface Job {
  id: string;
  input: unknown;
  webhook?: string;
  s3Config?: Record<string, unknown>;
  policy?: Record<string, unknown>;
  /** Aborted when the platform stops the job (cancelled, timed out) or the worker shuts down past its grace. */
  signal: AbortSignal;
  /** Reports partial output; the job stays IN_PROGRESS (a progress update never overwrites the final result). */
  progress(output: unknown): Promise<void>;
}

/**
 * A handler returns the job's output (or a promise of it), or is an async generator: each yielded value is a
 * stream chunk (GET /stream), and the output is the list of chunks when `returnAggregateStream` is set. Throwing
 * (or returning `{error}`) fails the job with that message.
 */
export type JobHandler = (job: Job) => unknown;

export interface WorkerOptions {
  handler: JobHandler;
  /** Jobs run at once (more than one: one job-take-batch long poll for the free slots). Default: WORKER_CONCURRENCY, else 1. */
  concurrency?: number;
  /** For generator handlers: also send the list of chunks as the output. Default false. */
  returnAggregateStream?: boolean;
  /** SIGTERM: how long in-flight jobs may take to finish before they are handed back. Default 25 s. */
  shutdownGraceMs?: number;
  /** Exit the process once stopped by a signal. Default true. */
  exitOnSignal?: boolean;
  /** The environment (default: the process environment). */
  env?: Record<string, string | undefined>;
  log?: (line: string) => void;
}

export interface RunningWorker {
  readonly config: WorkerConfig;
  /** Stops taking jobs, lets in-flight jobs finish within the grace, hands back the rest. */
  stop(): Promise<void>;
  /** Resolves when the worker has stopped. */
  readonly stopped: Promise<void>;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

interface Active {
  controller: AbortController;
  stopped: boolean;
}

/**
 * Starts a worker speaking the platform's worker protocol (compatibility.md §2): long-polled job-take, job-done
 * (with retries: results are not dropped on a 5xx), job-stream, heartbeats listing the running jobs, and the
 * job-stop long poll, which aborts a cancelled or timed-out job's `signal` (no result is posted for it).
 */
export function startWorker(options: WorkerOptions): RunningWorker {
  const config = readWorkerConfig(options.env);
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? config.concurrency));
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const active = new Map<string, Active>();
  const polling = new AbortController();
  let stopping: Promise<void> | null = null;
  let resolveStopped: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (resolveStopped = resolve));
  const platform = new PlatformCalls(config, concurrency, log);

  async function run(raw: Record<string, unknown>): Promise<void> {
    const id = String(raw.id);
    const entry: Active = { controller: new AbortController(), stopped: false };
    active.set(id, entry);
    const job: Job = {
      id,
      input: raw.input,
      ...(typeof raw.webhook === 'string' ? { webhook: raw.webhook } : {}),
      ...(raw.s3Config ? { s3Config: raw.s3Config as Record<string, unknown> } : {}),
      ...(raw.policy ? { policy: raw.policy as Record<string, unknown> } : {}),
      signal: entry.controller.signal,
      progress: async (output: unknown) => {
        if (entry.stopped) return;
        await platform.post(platform.jobUrl('done', id, false), { status: 'IN_PROGRESS', output });
      },
    };
    try {
      const result = options.handler(job);
      let body: Record<string, unknown>;
      let isStream = false;
      if (isAsyncIterable(result)) {
        isStream = true;
        const chunks: unknown[] = [];
        for await (const chunk of result) {
          if (entry.stopped) break;
          if (options.returnAggregateStream) chunks.push(chunk);
          await platform.post(platform.jobUrl('stream', id, false), { output: chunk });
        }
        body = options.returnAggregateStream ? { output: chunks } : {};
      } else {
        const output = await result;
        body =
          typeof output === 'object' && output !== null && 'error' in output
            ? { error: String(output.error) }
            : { output: output ?? null };
      }
      if (entry.stopped) {
        log(`worker: job ${id} was stopped by the platform; no result posted`);
        return;
      }
      await platform.post(platform.jobUrl('done', id, isStream), body);
    } catch (error) {
      if (entry.stopped) {
        log(`worker: job ${id} was stopped by the platform; no result posted`);
        return;
      }
      const err = error as Error;
      await platform.post(platform.jobUrl('done', id, false), {
        error: JSON.stringify({
          error_type: err?.name ?? 'Error',
          error_message: err?.message ?? String(error),
          error_traceback: err?.stack ?? '',
          hostname: hostname(),
          worker_id: config.workerId,
          runpod_version: SDK_VERSION,
        }),
      });
    } finally {
      active.delete(id);
    }
  }

  /** Polls while a slot is free; each job runs as it comes, and the poll goes on for the slots still free. */
  async function poll(): Promise<void> {
    const running = new Set<Promise<void>>();
    while (!polling.signal.aborted) {
      if (active.size >= concurrency) {
        await Promise.race(running);
        continue;
      }
      const taken = await platform.take(concurrency - active.size, active.size, polling.signal);
      for (const raw of taken) {
        if (typeof raw?.id !== 'string') continue;
        const job = run(raw).finally(() => running.delete(job));
        running.add(job);
      }
      // The jobs just taken go first: a handler that answers at once has its job-done on the wire before the
      // poll for the slots still free, which the platform would otherwise read, and start to hold, ahead of the
      // result a caller waits for (issue 13: ~0.6 ms of each /runsync on a loaded two-core machine).
      if (taken.length) await setImmediate();
    }
    await Promise.allSettled(running);
  }

  const ping = () => platform.ping([...active.keys()]);

  /** The job-stop long poll, again and again: a stopped job's `signal` aborts, and no result is posted for it. */
  async function watchStops(): Promise<void> {
    while (!polling.signal.aborted) {
      for (const id of await platform.stops(polling.signal)) {
        const entry = active.get(id);
        if (!entry) continue;
        log(`worker: job-stop for ${id}`);
        entry.stopped = true;
        entry.controller.abort(new Error(`job ${id} was stopped by the platform`));
      }
    }
  }

  const pinger = setInterval(() => void ping(), config.pingIntervalMs);
  void ping();
  const loops = [poll(), watchStops()];

  async function stop(): Promise<void> {
    stopping ??= (async () => {
      polling.abort();
      const grace = options.shutdownGraceMs ?? 25_000;
      const deadline = Date.now() + grace;
      while (active.size && Date.now() < deadline) await sleep(100);
      if (active.size) {
        log(`worker: handing back ${active.size} unfinished job(s): ${[...active.keys()].join(', ')}`);
        for (const entry of active.values()) {
          entry.stopped = true;
          entry.controller.abort(new Error('the worker is shutting down'));
        }
        active.clear();
      }
      clearInterval(pinger);
      // The last heartbeat lists only what still runs (nothing): the platform takes the rest back.
      await ping();
      await Promise.allSettled(loops);
      platform.close();
      resolveStopped();
    })();
    return stopping;
  }

  const onSignal = (signal: NodeJS.Signals) => {
    log(`worker: ${signal}: finishing in-flight jobs`);
    void stop().then(() => {
      if (options.exitOnSignal ?? true) process.exit(0);
    });
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  log(`worker ${config.workerId} of endpoint ${config.endpointId}: taking jobs (concurrency ${concurrency})`);
  return { config, stop, stopped };
}
