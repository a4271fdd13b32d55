import { HttpClient, type HttpRequestInit, type HttpResponse } from './http-client.js';
import type { WorkerConfig } from './worker-config.js';

export const SDK_VERSION = 'gpucp-worker-sdk/0.1.0';

const TAKE_TIMEOUT_MS = 95_000;
/** The most jobs one job-take-batch may ask for (the platform's `batch_size` limit). */
const MAX_BATCH = 64;
const POST_ATTEMPTS = 8;

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * The worker's calls to the platform (compatibility.md §2), each as the stock SDKs make it: the long-polled
 * job-take (or job-take-batch for a worker of several slots), results posted with retries, the heartbeat and the
 * job-stop long poll. How the worker uses them (which jobs run, when it polls, how it stops) is worker.ts's.
 */
export class PlatformCalls {
  private readonly http = new HttpClient();
  private readonly auth: Record<string, string>;

  constructor(
    private readonly config: WorkerConfig,
    private readonly concurrency: number,
    private readonly log: (line: string) => void,
  ) {
    this.auth = { authorization: config.apiKey };
  }

  /** POSTs a result, retrying 5xx, 429 and network errors; false once a 4xx refused it (logged, dropped). */
  async post(url: string, body: unknown): Promise<boolean> {
    for (let attempt = 1; attempt <= POST_ATTEMPTS; attempt++) {
      try {
        const response = await this.request(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(60_000),
        });
        const text = response.body;
        if (response.ok) return true;
        if (response.status < 500 && response.status !== 429) {
          this.log(`worker: POST ${url} answered ${response.status}: ${text.slice(0, 500)}; dropped`);
          return false;
        }
        this.log(`worker: POST ${url} answered ${response.status} (attempt ${attempt}); retrying`);
      } catch (error) {
        this.log(`worker: POST ${url} failed (attempt ${attempt}): ${(error as Error).message}; retrying`);
      }
      await sleep(Math.min(500 * 2 ** attempt, 10_000));
    }
    return false;
  }

  /** The job-done (or, `stream`, the job-stream) URL of a job. */
  jobUrl(kind: 'done' | 'stream', jobId: string, isStream: boolean): string {
    const template = kind === 'done' ? this.config.doneUrlTemplate : this.config.streamUrlTemplate;
    const url = template.replaceAll('$ID', encodeURIComponent(jobId));
    return `${url}${url.includes('?') ? '&' : '?'}isStream=${isStream}`;
  }

  /**
   * One long poll for up to `free` jobs: job-take when the worker runs one job at a time, job-take-batch with
   * `batch_size` when it runs several (as the stock SDK does: one poll for every free slot, not one poll per slot).
   * [] when none came, or after a pause when the platform could not be asked.
   */
  async take(free: number, running: number, signal: AbortSignal): Promise<Record<string, unknown>[]> {
    const batched = this.concurrency > 1;
    const base = batched
      ? this.config.takeUrl.replace('/job-take/', '/job-take-batch/')
      : this.config.takeUrl;
    const batch = batched ? `&batch_size=${Math.min(free, MAX_BATCH)}` : '';
    const url = `${base}${base.includes('?') ? '&' : '?'}job_in_progress=${running ? 1 : 0}${batch}`;
    try {
      const response = await this.request(url, {
        signal: AbortSignal.any([signal, AbortSignal.timeout(TAKE_TIMEOUT_MS)]),
      });
      if (response.status === 204) return [];
      if (response.status === 429) {
        await sleep(5000, signal);
        return [];
      }
      if (!response.ok) {
        this.log(`worker: job-take answered ${response.status}: ${response.body.slice(0, 300)}`);
        await sleep(1000, signal);
        return [];
      }
      const body = JSON.parse(response.body) as Record<string, unknown> | Record<string, unknown>[];
      return Array.isArray(body) ? body : [body];
    } catch (error) {
      if (!signal.aborted) {
        this.log(`worker: job-take failed: ${(error as Error).message}`);
        await sleep(1000, signal);
      }
      return [];
    }
  }

  /** The heartbeat, listing the jobs in progress. */
  async ping(jobIds: string[]): Promise<void> {
    const params = new URLSearchParams({ runpod_version: SDK_VERSION });
    if (jobIds.length) params.set('job_id', jobIds.join(','));
    const { pingUrl, pingIntervalMs } = this.config;
    const url = `${pingUrl}${pingUrl.includes('?') ? '&' : '?'}${params.toString()}`;
    try {
      await this.request(url, { signal: AbortSignal.timeout(Math.max(pingIntervalMs, 5000)) });
    } catch (error) {
      this.log(`worker: ping failed: ${(error as Error).message}`);
    }
  }

  /**
   * One job-stop long poll: the ids of jobs the platform stopped (cancelled, timed out); [] when none came, or
   * after a pause when the platform could not be asked.
   */
  async stops(signal: AbortSignal): Promise<string[]> {
    try {
      const response = await this.request(this.config.stopUrl, {
        signal: AbortSignal.any([signal, AbortSignal.timeout(TAKE_TIMEOUT_MS)]),
      });
      if (response.ok && response.status === 200) {
        return (JSON.parse(response.body) as { jobsToStop?: string[] }).jobsToStop ?? [];
      }
    } catch {
      // Waited out below, as a refusal is.
    }
    await sleep(1000, signal);
    return [];
  }

  /** Closes the idle connections. */
  close(): void {
    this.http.close();
  }

  private request(url: string, init: HttpRequestInit = {}): Promise<HttpResponse> {
    return this.http.request(url, { ...init, headers: { ...this.auth, ...init.headers } });
  }
}
