import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  Subjects,
  isTerminalJobStatus,
  jobIdFor,
  type Actor,
  type EndpointHealth,
  type JobAccepted,
  type JobView,
  type PurgeResult,
  type RunJobDto,
  type StreamRead,
  type SubmitJobCommand,
  type SubmitManyItem,
  type SubmitResult,
} from '@app/contracts';
import { CommandBus, QueryBus } from '@app/messaging';
import { PodLogTail } from '../logs/pod-log-tail.js';
import { EndpointAccess } from './endpoint-access.js';
import { GatewayPayloads } from './gateway-payloads.js';
import { JobSignals } from './job-signals.js';
import type { ClaimedTake, Watcher } from './watchers.js';
import { JobViews } from './job-views.js';
import { withLastLogLines, withWaitReason } from './job-wait-reason.js';
import { JobsEdgeConfig } from './jobs-edge.config.js';
import { BATCH_INPUT_MAX_BYTES, SubmitBatcher } from './submit-batcher.js';
import { WebhookSecretsService } from './webhook-secrets.service.js';

/** The queue routes: thin translations into the broker's commands and queries, plus the sync waits. */
@Injectable()
export class JobsService {
  private readonly logger = new Logger('jobs');

  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    private readonly endpoints: EndpointAccess,
    private readonly payloads: GatewayPayloads,
    private readonly signals: JobSignals,
    private readonly views: JobViews,
    private readonly webhookSecrets: WebhookSecretsService,
    private readonly batcher: SubmitBatcher,
    private readonly logTail: PodLogTail,
    @Inject(JobsEdgeConfig) private readonly config: JobsEdgeConfig,
  ) {}

  async run(endpointId: string, dto: RunJobDto, actor: Actor): Promise<JobAccepted> {
    await this.endpoints.queueEndpoint(endpointId, actor);
    return this.submit(randomUUID(), endpointId, dto, actor, false);
  }

  /** Submits, then waits up to `waitMs` for the job to finish; `{id, status}` when the wait runs out first. */
  async runSync(
    endpointId: string,
    dto: RunJobDto,
    waitMs: number,
    actor: Actor,
    signal: AbortSignal,
  ): Promise<JobView> {
    const endpoint = await this.endpoints.queueEndpoint(endpointId, actor);
    // Watching before the submit: a job finished before the first wait still wakes it.
    const commandId = randomUUID();
    const watcher = this.signals.watchJob(jobIdFor(commandId, true));
    try {
      const accepted = await this.submit(commandId, endpointId, dto, actor, true, waitMs);
      // Just submitted, it cannot be finished yet: wait for its change before the first read.
      const view = await this.waitFinal(endpointId, accepted.id, waitMs, actor, signal, watcher);
      return withWaitReason(view, endpoint, new Date());
    } finally {
      watcher.close();
    }
  }

  /** GET /status: with `ttlMs`, the job's expiry moved first; a finished job's view comes from the read model. */
  async status(endpointId: string, jobId: string, ttlMs: number | undefined, actor: Actor): Promise<JobView> {
    const endpoint = await this.endpoints.queueEndpoint(endpointId, actor);
    if (ttlMs !== undefined) {
      await this.commands.execute(Subjects.job.setTtl, { endpointId, jobId, ttlMs }, actor);
      this.views.forget(jobId);
    }
    // An IN_QUEUE job says why it waits, from the endpoint view just read (job-wait-reason.ts: no query of its own).
    return withWaitReason(await this.views.get(endpointId, jobId, actor), endpoint, new Date());
  }

  async statusSync(
    endpointId: string,
    jobId: string,
    waitMs: number,
    actor: Actor,
    signal: AbortSignal,
  ): Promise<JobView> {
    const endpoint = await this.endpoints.queueEndpoint(endpointId, actor);
    const watcher = this.signals.watchJob(jobId);
    try {
      const view = await this.views.get(endpointId, jobId, actor);
      if (isTerminalJobStatus(view.status)) return view;
      const last = await this.waitFinal(endpointId, jobId, waitMs, actor, signal, watcher);
      return withWaitReason(last, endpoint, new Date());
    } finally {
      watcher.close();
    }
  }

  /** Chunks not delivered before; waits a little for the next one rather than answering empty at once. */
  async stream(endpointId: string, jobId: string, actor: Actor, signal: AbortSignal): Promise<StreamRead> {
    await this.endpoints.queueEndpoint(endpointId, actor);
    const watcher = this.signals.watchJob(jobId);
    try {
      const deadline = Date.now() + this.config.JOB_STREAM_LONG_POLL_MS;
      for (;;) {
        const read = await this.payloads.take(
          await this.commands.execute(Subjects.job.readStream, { endpointId, jobId }, actor),
        );
        const remaining = deadline - Date.now();
        if (read.stream.length || isTerminalJobStatus(read.status) || remaining <= 0) return read;
        await watcher.wait(remaining, AbortSignal.any([signal, this.signals.shutdown]));
        if (signal.aborted || this.signals.shutdown.aborted) return read;
      }
    } finally {
      watcher.close();
    }
  }

  async cancel(endpointId: string, jobId: string, actor: Actor): Promise<JobAccepted> {
    await this.endpoints.queueEndpoint(endpointId, actor);
    return this.commands.execute(Subjects.job.cancel, { endpointId, jobId }, actor);
  }

  async retry(endpointId: string, jobId: string, actor: Actor): Promise<JobAccepted> {
    await this.endpoints.queueEndpoint(endpointId, actor);
    return this.commands.execute(Subjects.job.retry, { endpointId, jobId }, actor);
  }

  async purge(endpointId: string, actor: Actor): Promise<PurgeResult> {
    await this.endpoints.queueEndpoint(endpointId, actor);
    const { removed, status } = await this.commands.execute(Subjects.job.purge, { endpointId }, actor);
    return { removed, status };
  }

  /**
   * RunPod's counts as the broker keeps them, and ours beside them: why the endpoint waits for workers (`throttled`,
   * from the autoscaler's view of the endpoint, which the access check just read), when it does, and why its jobs
   * wait (`waitReason`); each absent when nothing holds them, as RunPod's /health has neither.
   */
  async health(endpointId: string, actor: Actor): Promise<EndpointHealth> {
    const endpoint = await this.endpoints.queueEndpoint(endpointId, actor);
    const [health, waitReason] = await Promise.all([
      this.queries.query(Subjects.job.health, { endpointId }, actor),
      endpoint.waitReason
        ? withLastLogLines(endpoint.waitReason, (...args) => this.logTail.last(...args))
        : null,
    ]);
    return {
      ...health,
      ...(endpoint.throttled ? { throttled: endpoint.throttled } : {}),
      ...(waitReason ? { waitReason } : {}),
    };
  }

  private async submit(
    commandId: string,
    endpointId: string,
    dto: RunJobDto,
    actor: Actor,
    sync: boolean,
    waitMs?: number,
  ): Promise<JobAccepted> {
    // What Postgres's jsonb would refuse (NUL, an unpaired surrogate) never gets here: the edge's RequestShapePipe
    // refuses it in any body, and the broker's submit handlers refuse it as its owner.
    const json = JSON.stringify(dto.input);
    const packed = await this.payloads.packJson(`in-${commandId}`, json);
    const webhook = dto.webhook ?? dto.webhookV2;
    // Its delivery will be signed: the endpoint gets its secret before the first job that needs it.
    if (webhook) await this.webhookSecrets.ensure(endpointId, actor);
    // A job-take poll of the endpoint waiting on this gateway: its take is piggy-backed on the submit (docs/adr/0013, "Piggy-backed take").
    const claim = this.signals.claimTake(endpointId);
    const bytes = claim || !packed.inline ? Infinity : Buffer.byteLength(json);
    if (bytes <= BATCH_INPUT_MAX_BYTES) {
      // No take to carry and a small input: it may travel batched with concurrent submits (docs/adr/0013).
      const item: SubmitManyItem = {
        id: commandId,
        sync,
        input: dto.input,
        ...(webhook ? { webhook } : {}),
        ...(dto.s3Config ? { s3Config: dto.s3Config } : {}),
        ...(dto.policy ? { policy: { ...dto.policy } } : {}),
        ...(waitMs !== undefined ? { waitMs } : {}),
      };
      return this.batcher.submit(endpointId, actor, item, bytes);
    }
    const payload: SubmitJobCommand = {
      endpointId,
      sync,
      ...(packed.inline ? { input: dto.input } : { inputBlob: packed.ref }),
      ...(webhook ? { webhook } : {}),
      ...(dto.s3Config ? { s3Config: dto.s3Config } : {}),
      ...(dto.policy ? { policy: { ...dto.policy } } : {}),
      ...(waitMs !== undefined ? { waitMs } : {}),
      ...(claim ? { take: { endpointId, ...claim.offer } } : {}),
    };
    let result: SubmitResult;
    try {
      result = await this.commands.execute(Subjects.job.submit, payload, actor, { commandId });
    } catch (error) {
      claim?.release();
      throw error;
    }
    if (claim) void this.handOver(claim, result);
    return { id: result.id, status: result.status };
  }

  /** The jobs the submit's take leased, to the poll it was claimed for (unpacked if they came as a blob). */
  private async handOver(claim: ClaimedTake, result: SubmitResult): Promise<void> {
    try {
      claim.deliver(result.taken ? (await this.payloads.take(result.taken)).jobs : []);
    } catch (error) {
      // Leased but not handed out: as for a take whose answer is lost, the lease is taken back unconfirmed.
      this.logger.warn(
        `the jobs a submit leased to worker ${claim.offer.workerId} were not read: ${String(error)}`,
      );
      claim.release();
    }
  }

  /**
   * Waits for the job to finish (a change signal, or every JOB_SYNC_RECHECK_MS), reading it after each wake;
   * `{id, status}` when `waitMs` runs out first. The caller read it unfinished (or just submitted it).
   */
  private async waitFinal(
    endpointId: string,
    jobId: string,
    waitMs: number,
    actor: Actor,
    signal: AbortSignal,
    watcher: Watcher,
  ): Promise<JobView> {
    const stop = AbortSignal.any([signal, this.signals.shutdown]);
    const deadline = Date.now() + waitMs;
    for (;;) {
      const remaining = deadline - Date.now();
      if (remaining > 0 && !stop.aborted) {
        await watcher.wait(Math.min(remaining, this.config.JOB_SYNC_RECHECK_MS), stop);
      }
      const view = await this.views.get(endpointId, jobId, actor);
      if (isTerminalJobStatus(view.status)) return view;
      if (deadline - Date.now() <= 0 || stop.aborted) return { id: view.id, status: view.status };
    }
  }
}
