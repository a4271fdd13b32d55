import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  DomainError,
  ErrorCode,
  JobLimits,
  Subjects,
  type Actor,
  type DoneManyItem,
  type JobDoneResult,
  type JobStreamResult,
  type StopsResult,
  type TakenJob,
} from '@app/contracts';
import { CommandBus } from '@app/messaging';
import { EndpointAccess } from '../jobs/endpoint-access.js';
import { GatewayPayloads } from '../jobs/gateway-payloads.js';
import { JobSignals } from '../jobs/job-signals.js';
import { JobsEdgeConfig } from '../jobs/jobs-edge.config.js';
import type { TakeOffer } from '../jobs/watchers.js';
import { DoneBatcher } from './done-batcher.js';
import { EmptyQueues } from './empty-queues.js';
import { jsonBody, parseDoneBody } from './worker-body.js';

const INFRA_ERRORS: readonly string[] = [ErrorCode.OwnerUnavailable, ErrorCode.DependencyUnavailable];
const ERROR_HOLD_MS = 5000;

export interface PingParams {
  jobIds: string[];
  unhealthy: boolean;
  reason?: string;
  version?: string;
}

/**
 * The worker protocol (compatibility.md §2). Long polls hold the request until a job (or a stop) comes, waking on
 * the broker's events; overload and outages never answer 5xx to job-take (the stock worker would re-poll at once):
 * the poll simply waits and ends with 204.
 */
@Injectable()
export class WorkersService {
  private readonly logger = new Logger('workers');

  constructor(
    private readonly commands: CommandBus,
    private readonly endpoints: EndpointAccess,
    private readonly payloads: GatewayPayloads,
    private readonly signals: JobSignals,
    private readonly emptyQueues: EmptyQueues,
    private readonly dones: DoneBatcher,
    @Inject(JobsEdgeConfig) private readonly config: JobsEdgeConfig,
  ) {}

  /** Up to `batchSize` jobs leased to the worker; [] when none came within the long poll. */
  async take(
    endpointId: string,
    workerId: string,
    batchSize: number,
    gpu: string | undefined,
    actor: Actor,
    signal: AbortSignal,
  ): Promise<TakenJob[]> {
    const stop = AbortSignal.any([signal, this.signals.shutdown]);
    // Every ask of this poll says when the worker really called (only its own requests prove it alive).
    const requestedAt = new Date().toISOString();
    const deadline = Date.now() + this.config.JOB_TAKE_LONG_POLL_MS;
    const offer = { workerId, batchSize, requestedAt, ...(gpu ? { gpu: gpu.slice(0, 100) } : {}) };
    const watcher = this.signals.watchQueue(endpointId, offer);
    try {
      if (!(await this.holdOnError(() => this.endpoints.queueEndpoint(endpointId, actor), deadline, stop))) {
        return [];
      }
      for (;;) {
        // A submit claimed this poll while it waited: its take leased for us (asked when the count was `mark`).
        // Released (the submit failed): the poll goes on and asks for itself.
        if (watcher.claimed) {
          const mark = this.emptyQueues.mark(endpointId);
          const askedAt = watcher.claimedAt;
          const jobs = await watcher.takeClaimed();
          if (jobs) this.emptyQueues.took(endpointId, workerId, mark, jobs.length < batchSize);
          if (jobs?.length && this.inTime(jobs, askedAt, workerId)) return jobs;
        }
        if (stop.aborted) return [];
        let result: TakenJob[] | null = [];
        if (!this.emptyQueues.maySkipTake(endpointId, workerId)) {
          const mark = this.emptyQueues.mark(endpointId);
          const askedAt = Date.now();
          result = await this.tryTake(endpointId, offer, actor);
          // Fewer jobs than asked for: the take left nothing queued (a batch take that leased one of one job, and
          // the worker's next poll for its other slots need not ask again until something is queued).
          if (result) this.emptyQueues.took(endpointId, workerId, mark, result.length < batchSize);
          if (result?.length && !this.inTime(result, askedAt, workerId)) result = [];
        }
        if (result?.length) return result;
        const remaining = deadline - Date.now();
        if (remaining <= 0) return [];
        await watcher.wait(
          Math.min(remaining, result === null ? ERROR_HOLD_MS : this.config.JOB_POLL_RECHECK_MS),
          stop,
        );
      }
    } finally {
      watcher.close();
    }
  }

  /** Jobs to abandon (cancelled, timed out), each told once; waits for one up to the long poll. */
  async stops(endpointId: string, workerId: string, actor: Actor, signal: AbortSignal): Promise<StopsResult> {
    const stop = AbortSignal.any([signal, this.signals.shutdown]);
    const requestedAt = new Date().toISOString();
    const deadline = Date.now() + this.config.JOB_STOP_LONG_POLL_MS;
    const watcher = this.signals.watchStops(workerId);
    try {
      if (!(await this.holdOnError(() => this.endpoints.queueEndpoint(endpointId, actor), deadline, stop))) {
        return { jobsToStop: [] };
      }
      for (;;) {
        if (stop.aborted) return { jobsToStop: [] };
        let result: StopsResult | null = null;
        try {
          result = await this.commands.execute(
            Subjects.worker.collectStops,
            { endpointId, workerId, requestedAt },
            actor,
            {
              timeoutMs: this.config.WORKER_COMMAND_TIMEOUT_MS,
            },
          );
        } catch (error) {
          if (!isInfra(error)) throw error;
        }
        if (result?.jobsToStop.length) return result;
        const remaining = deadline - Date.now();
        if (remaining <= 0) return { jobsToStop: [] };
        await watcher.wait(
          Math.min(remaining, result === null ? ERROR_HOLD_MS : this.config.JOB_POLL_RECHECK_MS),
          stop,
        );
      }
    } finally {
      watcher.close();
    }
  }

  async done(
    endpointId: string,
    workerId: string,
    jobId: string,
    body: unknown,
    actor: Actor,
  ): Promise<JobDoneResult> {
    await this.endpoints.queueEndpoint(endpointId, actor);
    const parsed = parseDoneBody(body);
    const id = randomUUID();
    const post: DoneManyItem = {
      id,
      jobId,
      hasOutput: parsed.hasOutput,
      progress: parsed.progress,
      stopPod: parsed.stopPod,
      ...(parsed.error !== undefined ? { error: parsed.error } : {}),
    };
    // What the post carries inline (the batcher's byte cap counts it): an oversize output or a blob travels as a
    // size or a reference.
    let bytes = 0;
    if (parsed.hasOutput) {
      const json = JSON.stringify(parsed.output ?? null);
      const size = Buffer.byteLength(json);
      if (size > JobLimits.outputBytes) {
        post.oversizeBytes = size;
      } else {
        const packed = await this.payloads.packJson(`out-${id}`, json);
        if (packed.inline) {
          post.output = parsed.output;
          bytes = size;
        } else post.outputBlob = packed.ref;
      }
    }
    // Batched with the worker's other posts while one is on its way (docs/adr/0013, "Batched results").
    return this.dones.done({ endpointId, workerId, actor }, post, bytes);
  }

  async stream(
    endpointId: string,
    workerId: string,
    jobId: string,
    body: unknown,
    actor: Actor,
  ): Promise<JobStreamResult> {
    await this.endpoints.queueEndpoint(endpointId, actor);
    const json = jsonBody(body);
    const output = json.output;
    const commandId = randomUUID();
    const packed = await this.payloads.packJson(`chunk-${commandId}`, JSON.stringify(output ?? null));
    return this.commands.execute(
      Subjects.worker.stream,
      {
        endpointId,
        workerId,
        jobId,
        ...(packed.inline ? { output } : { outputBlob: packed.ref }),
      },
      actor,
      { commandId, timeoutMs: this.config.WORKER_COMMAND_TIMEOUT_MS },
    );
  }

  async ping(endpointId: string, workerId: string, params: PingParams, actor: Actor): Promise<{ ok: true }> {
    // The broker counts the heartbeat's list from its arrival, however long the endpoint's lookup holds it.
    const requestedAt = new Date().toISOString();
    await this.endpoints.queueEndpoint(endpointId, actor);
    await this.commands.execute(
      Subjects.worker.ping,
      {
        endpointId,
        workerId,
        jobIds: params.jobIds,
        unhealthy: params.unhealthy,
        requestedAt,
        ...(params.reason ? { reason: params.reason.slice(0, 2000) } : {}),
        ...(params.version ? { version: params.version.slice(0, 100) } : {}),
      },
      actor,
      { timeoutMs: this.config.WORKER_COMMAND_TIMEOUT_MS },
    );
    return { ok: true };
  }

  /** One take; null when the broker could not be asked (the poll waits and tries again). */
  private async tryTake(endpointId: string, offer: TakeOffer, actor: Actor): Promise<TakenJob[] | null> {
    try {
      const result = await this.payloads.take(
        await this.commands.execute(Subjects.worker.take, { endpointId, ...offer }, actor, {
          timeoutMs: this.config.JOB_TAKE_HAND_OUT_MS,
        }),
      );
      return result.jobs;
    } catch (error) {
      if (!isInfra(error)) throw error;
      this.logger.warn(`job-take of worker ${offer.workerId} waits: ${(error as Error).message}`);
      return null;
    }
  }

  /**
   * Whether jobs leased by a take asked at `askedAt` may still be handed to the worker (JOB_TAKE_HAND_OUT_MS). A
   * late answer (a take applied after an outage or a broker's death) is left to the broker, which takes the jobs
   * back unconfirmed at the worker's next heartbeat, rather than handed out to a worker whose earlier heartbeats,
   * which could not list them, may already have taken them back (the job would run twice).
   */
  private inTime(jobs: TakenJob[], askedAt: number, workerId: string): boolean {
    const waitedMs = Date.now() - askedAt;
    if (waitedMs <= this.config.JOB_TAKE_HAND_OUT_MS) return true;
    this.logger.warn(
      `job-take of worker ${workerId} answered after ${waitedMs} ms (JOB_TAKE_HAND_OUT_MS ` +
        `${this.config.JOB_TAKE_HAND_OUT_MS}): ${jobs.map((j) => j.id).join(', ')} not handed out, left to be ` +
        'taken back unconfirmed',
    );
    return false;
  }

  /**
   * Runs `fn`; an outage (owner unavailable) is waited out until the deadline (false: the poll ends empty, never
   * 5xx), and any other error is answered only after a pause, so a worker that re-polls at once does not spin.
   */
  private async holdOnError(
    fn: () => Promise<unknown>,
    deadline: number,
    stop: AbortSignal,
  ): Promise<boolean> {
    for (;;) {
      try {
        await fn();
        return true;
      } catch (error) {
        const remaining = deadline - Date.now();
        await sleep(Math.min(Math.max(remaining, 0), ERROR_HOLD_MS), stop);
        if (!isInfra(error)) throw error;
        if (Date.now() >= deadline || stop.aborted) return false;
      }
    }
  }
}

function isInfra(error: unknown): boolean {
  return error instanceof DomainError && INFRA_ERRORS.includes(error.code);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (ms <= 0 || signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
