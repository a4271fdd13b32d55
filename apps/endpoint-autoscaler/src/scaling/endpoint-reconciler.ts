import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  Domain,
  DomainError,
  ErrorCode,
  PodStatus,
  Subjects,
  commandOutcomeSubject,
  deriveId,
  type Actor,
  type CommandOutcome,
  type CreatePodCommand,
  type PodView,
  type QueueStats,
} from '@app/contracts';
import { CommandBus, QueryBus } from '@app/messaging';
import { EndpointAutoscalerConfig } from '../endpoint-autoscaler.config.js';
import type { EndpointEntity } from '../endpoints/endpoint.entity.js';
import { EndpointsRepository } from '../endpoints/endpoints.repository.js';
import { workerEnv, workerSecretEnv } from '../workers/worker-env.js';
import { WorkerEntity, type WorkerDesired } from '../workers/worker.entity.js';
import { WorkersRepository } from '../workers/workers.repository.js';
import { autoscalerMetrics } from './autoscaler.metrics.js';
import { desiredWorkers, type ScalingDecision } from './desired-workers.js';
import { PlacementCatalog } from './placement-catalog.js';
import { ScalingEventEntity, type ScalingAction } from './scaling-event.entity.js';
import { ScalingEventsRepository } from './scaling-events.repository.js';

/** The pod command that brings a pod to what the autoscaler wants of it. */
const COMMAND_FOR: Record<Exclude<WorkerDesired, never>, 'start' | 'stop' | 'terminate'> = {
  RUNNING: 'start',
  EXITED: 'stop',
  TERMINATED: 'terminate',
};

interface Observed {
  worker: WorkerEntity;
  /** The pod as pod-lifecycle sees it; null when it does not exist (never created, or gone). */
  pod: PodView | null;
}

/**
 * One endpoint, one tick: observe the worker pods, compare what the scaler wants with what there is, and act
 * (create, resume, stop, terminate), recording every change as a scaling event with its reason. Level-triggered:
 * everything it decides is written to the workers table before the pod command is issued, and a command whose
 * effect is not visible is issued again with the same id (so a crash, a restart or a lost message heals on a
 * later tick without doing anything twice).
 */
/**
 * How long an endpoint whose owner reached their monthly spend limit creates and resumes no worker: the refusal
 * (SPEND_LIMIT_REACHED) is recorded as a failed scaling event, and asking again every tick would only record more.
 */
const SPEND_LIMIT_BACKOFF_MS = 30_000;

@Injectable()
export class EndpointReconciler {
  private readonly logger = new Logger('autoscaler');
  /** Pod commands this process has issued and not yet seen answered (podId → since). */
  private readonly inFlight = new Map<string, number>();
  /** Endpoint id → time before which no new worker is created (after a failed create). */
  private readonly backoffUntil = new Map<string, number>();
  /** Endpoint id → time before which no worker is created or resumed (the owner's spend limit was reached). */
  private readonly spendBlockedUntil = new Map<string, number>();

  constructor(
    private readonly endpoints: EndpointsRepository,
    private readonly workers: WorkersRepository,
    private readonly events: ScalingEventsRepository,
    private readonly placement: PlacementCatalog,
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    private readonly config: EndpointAutoscalerConfig,
  ) {}

  async reconcile(endpoint: EndpointEntity, now: Date): Promise<void> {
    const actor: Actor = { userId: endpoint.ownerId, kind: 'system' };
    const observed = await this.observe(await this.workers.listByEndpoint(endpoint.id), actor);
    if (endpoint.deletedAt) return this.retire(endpoint, observed, actor, now);

    const remaining: Observed[] = [];
    for (const entry of observed) {
      if (await this.cleanUp(endpoint, entry, actor, now)) continue;
      remaining.push(entry);
    }
    await this.reissue(endpoint, remaining, actor);
    if (endpoint.type !== 'QB') {
      // Load-balancing endpoints are stored, listed and deleted; this deployment runs no workers for them.
      for (const entry of remaining.filter((e) => e.worker.desired !== 'TERMINATED')) {
        await this.retireWorker(
          endpoint,
          entry.worker,
          actor,
          now,
          'load-balancing endpoints run no workers here',
        );
      }
      return;
    }

    const stats = await this.queries.query(Subjects.job.queueStats, { endpointId: endpoint.id }, actor);
    const live = remaining.filter((e) => e.worker.desired === 'RUNNING');
    const running = live.filter((e) => e.pod?.status === PodStatus.Running);
    const decision = desiredWorkers({
      scalerType: endpoint.scalerType,
      scalerValue: endpoint.scalerValue,
      workersMin: endpoint.workersMin,
      workersMax: endpoint.workersMax,
      current: live.length,
      starting: live.length - running.length,
      inQueue: stats.inQueueNonLowPriority,
      inProgress: stats.inProgress,
      oldestQueuedMs: stats.inQueueNonLowPriority > 0 ? stats.oldestQueuedAgeMs : null,
    });
    autoscalerMetrics.desiredWorkers.set({ endpoint: endpoint.id }, decision.desired);
    autoscalerMetrics.currentWorkers.set({ endpoint: endpoint.id }, live.length);

    await this.trackIdleness(live, stats, now);
    await this.recycle(endpoint, live, stats, actor, now);
    if (decision.desired > live.length) {
      await this.scaleUp(endpoint, remaining, decision, live.length, stats, actor, now);
    } else if (decision.desired < live.length) {
      await this.scaleDown(endpoint, running, decision, live.length, stats, actor, now);
    }
  }

  /** Forgets what this process knew of an endpoint that is gone. */
  forget(endpointId: string): void {
    this.backoffUntil.delete(endpointId);
    this.spendBlockedUntil.delete(endpointId);
    autoscalerMetrics.desiredWorkers.remove({ endpoint: endpointId });
    autoscalerMetrics.currentWorkers.remove({ endpoint: endpointId });
  }

  // ---- observing ------------------------------------------------------------------------------------------------

  private async observe(workers: WorkerEntity[], actor: Actor): Promise<Observed[]> {
    return Promise.all(
      workers.map(async (worker) => {
        if (!worker.created) return { worker, pod: null };
        let pod: PodView | null = null;
        try {
          pod = await this.queries.query(Subjects.pod.get, { podId: worker.podId }, actor);
        } catch (error) {
          if (!(error instanceof DomainError && error.code === ErrorCode.NotFound)) throw error;
        }
        const status = pod?.status ?? PodStatus.Terminated;
        if (worker.podStatus !== status) {
          worker.podStatus = status;
          await this.workers.save(worker);
        }
        return { worker, pod };
      }),
    );
  }

  /**
   * Rows that are done with (terminated pods) go; live workers whose pod failed or vanished are terminated (the
   * scaler replaces them); stopped workers are not kept without FLASHBOOT. True when the entry is no longer live.
   */
  private async cleanUp(
    endpoint: EndpointEntity,
    entry: Observed,
    actor: Actor,
    now: Date,
  ): Promise<boolean> {
    const { worker, pod } = entry;
    if (!worker.created) return false;
    if (worker.podStatus === PodStatus.Terminated) {
      if (worker.desired !== 'TERMINATED') {
        await this.record(
          endpoint,
          'failed',
          worker.podId,
          0,
          0,
          'worker pod was terminated outside the autoscaler',
          {},
          now,
        );
      }
      await this.workers.delete(worker.podId);
      this.inFlight.delete(worker.podId);
      return true;
    }
    if (worker.desired === 'RUNNING' && pod?.status === PodStatus.Error) {
      await this.retireWorker(
        endpoint,
        worker,
        actor,
        now,
        `worker pod failed: ${pod.statusReason ?? 'ERROR'}`,
      );
      return true;
    }
    const stuckSince = now.getTime() - this.config.AUTOSCALER_REISSUE_AFTER_MS;
    if (
      worker.desired === 'RUNNING' &&
      pod?.status === PodStatus.Exited &&
      !this.inFlight.has(worker.podId) &&
      (pod.desiredStatus === PodStatus.Running || worker.desiredSince.getTime() < stuckSince)
    ) {
      await this.retireWorker(
        endpoint,
        worker,
        actor,
        now,
        `worker exited by itself: ${pod.statusReason ?? 'EXITED'}`,
      );
      return true;
    }
    if (worker.desired === 'EXITED' && !endpoint.flashBoot) {
      await this.retireWorker(endpoint, worker, actor, now, 'FLASHBOOT is off: stopped workers are not kept');
      return true;
    }
    return worker.desired === 'TERMINATED';
  }

  /**
   * Issues again, with the same command id, a command whose effect pod-lifecycle does not show (after a restart:
   * at once). A create that pod-lifecycle already answered is not sent again: its recorded outcome is read.
   */
  private async reissue(endpoint: EndpointEntity, entries: Observed[], actor: Actor): Promise<void> {
    const stale = Date.now() - this.config.AUTOSCALER_REISSUE_AFTER_MS;
    await Promise.all(
      entries.map(async ({ worker, pod }) => {
        const since = this.inFlight.get(worker.podId);
        if (since !== undefined && since > stale) return;
        if (!worker.created) {
          if (worker.desired !== 'RUNNING') return this.workers.delete(worker.podId);
          const recorded = await this.queries
            .raw<CommandOutcome<PodView> | null>(
              commandOutcomeSubject(Domain.Pod),
              { commandId: worker.createCommandId },
              actor,
            )
            .catch(() => null);
          if (!recorded) return this.createPod(endpoint, worker, actor);
          if (recorded.ok) return this.created(endpoint, worker, recorded.value, actor);
          await this.workers.delete(worker.podId);
          const reason = `worker not created: ${recorded.error.message}`;
          await this.record(endpoint, 'failed', worker.podId, 0, 0, reason, {}, new Date());
        } else if (pod && pod.desiredStatus !== worker.desired && worker.actionSeq > 0) {
          await this.podCommand(worker, COMMAND_FOR[worker.desired], actor);
        }
      }),
    );
  }

  // ---- deciding -------------------------------------------------------------------------------------------------

  /** Live workers are idle since the endpoint last had nothing queued or in progress (kept in the table). */
  private async trackIdleness(live: Observed[], stats: QueueStats, now: Date): Promise<void> {
    const busy = stats.inProgress > 0 || stats.inQueue > 0;
    for (const { worker, pod } of live) {
      const idleSince = busy || pod?.status !== PodStatus.Running ? null : (worker.idleSince ?? now);
      if ((worker.idleSince?.getTime() ?? null) !== (idleSince?.getTime() ?? null)) {
        worker.idleSince = idleSince;
        await this.workers.save(worker);
      }
    }
  }

  /** Workers that asked to be recycled (`stopPod: true`) are terminated; the scaler replaces them if needed. */
  private async recycle(
    endpoint: EndpointEntity,
    live: Observed[],
    stats: QueueStats,
    actor: Actor,
    now: Date,
  ): Promise<void> {
    const recycle = new Set(stats.recycleWorkerIds);
    for (const { worker } of live) {
      if (recycle.has(worker.podId)) {
        await this.retireWorker(endpoint, worker, actor, now, 'the worker asked to be recycled (stopPod)');
      }
    }
  }

  private async scaleUp(
    endpoint: EndpointEntity,
    entries: Observed[],
    decision: ScalingDecision,
    current: number,
    stats: QueueStats,
    actor: Actor,
    now: Date,
  ): Promise<void> {
    if (Date.now() < (this.spendBlockedUntil.get(endpoint.id) ?? 0)) return;
    let missing = decision.desired - current;
    const inputs = inputsOf(stats);
    if (endpoint.flashBoot) {
      const stopped = entries
        .filter((e) => e.worker.desired === 'EXITED' && e.pod?.status === PodStatus.Exited)
        .sort((a, b) => b.worker.desiredSince.getTime() - a.worker.desiredSince.getTime());
      for (const { worker } of stopped.slice(0, missing)) {
        this.setDesired(worker, 'RUNNING', now);
        await this.workers.save(worker);
        await this.record(
          endpoint,
          'resume',
          worker.podId,
          current,
          decision.desired,
          decision.reason,
          inputs,
          now,
        );
        if (await this.podCommand(worker, 'start', actor)) missing -= 1;
      }
    }
    if (missing <= 0) return;
    const backoff = this.backoffUntil.get(endpoint.id) ?? 0;
    if (Date.now() < backoff) return;
    const created = await Promise.all(
      Array.from({ length: missing }, async () => {
        const commandId = randomUUID();
        const worker = Object.assign(new WorkerEntity(), {
          // pod-lifecycle derives a created pod's id from the command id (pod.cmd.create: deriveId(id, 'pod')).
          podId: deriveId(commandId, 'pod'),
          endpointId: endpoint.id,
          createCommandId: commandId,
          created: false,
          desired: 'RUNNING',
          podStatus: null,
          actionSeq: 0,
          desiredSince: now,
          idleSince: null,
          createdAt: now,
        } satisfies WorkerEntity);
        await this.workers.insert(worker);
        await this.record(
          endpoint,
          'create',
          worker.podId,
          current,
          decision.desired,
          decision.reason,
          inputs,
          now,
        );
        return this.createPod(endpoint, worker, actor);
      }),
    );
    if (created.includes(false)) {
      this.backoffUntil.set(endpoint.id, Date.now() + this.config.AUTOSCALER_FAILURE_BACKOFF_MS);
    }
  }

  private async scaleDown(
    endpoint: EndpointEntity,
    running: Observed[],
    decision: ScalingDecision,
    current: number,
    stats: QueueStats,
    actor: Actor,
    now: Date,
  ): Promise<void> {
    // A worker with a job in flight is never stopped: nothing is stopped while the endpoint has a job running.
    if (stats.inProgress > 0) return;
    const idleFor = endpoint.idleTimeout * 1000;
    const candidates = running
      .filter((e) => e.worker.idleSince && now.getTime() - e.worker.idleSince.getTime() >= idleFor)
      .sort((a, b) => a.worker.idleSince!.getTime() - b.worker.idleSince!.getTime())
      .slice(0, current - decision.desired);
    for (const { worker } of candidates) {
      const idleS = Math.round((now.getTime() - worker.idleSince!.getTime()) / 100) / 10;
      const reason = `idle ${idleS} s >= idleTimeout ${endpoint.idleTimeout} s; ${decision.reason}`;
      const desired: WorkerDesired = endpoint.flashBoot ? 'EXITED' : 'TERMINATED';
      this.setDesired(worker, desired, now);
      worker.idleSince = null;
      await this.workers.save(worker);
      const action: ScalingAction = desired === 'EXITED' ? 'stop' : 'terminate';
      await this.record(
        endpoint,
        action,
        worker.podId,
        current,
        decision.desired,
        reason,
        inputsOf(stats),
        now,
      );
      await this.podCommand(worker, COMMAND_FOR[desired], actor);
    }
  }

  // ---- deleted endpoints ------------------------------------------------------------------------------------------

  /** A deleted endpoint: its queue is purged, its workers terminated, and once they are gone its row removed. */
  private async retire(
    endpoint: EndpointEntity,
    observed: Observed[],
    actor: Actor,
    now: Date,
  ): Promise<void> {
    await this.purgeQueue(endpoint, actor);
    let left = 0;
    for (const { worker } of observed) {
      if (!worker.created || worker.podStatus === PodStatus.Terminated) {
        await this.workers.delete(worker.podId);
        this.inFlight.delete(worker.podId);
        continue;
      }
      left += 1;
      if (worker.desired !== 'TERMINATED') {
        await this.retireWorker(endpoint, worker, actor, now, 'the endpoint was deleted');
      } else if (!this.inFlight.has(worker.podId)) {
        await this.podCommand(worker, 'terminate', actor);
      }
    }
    if (left === 0) {
      await this.endpoints.purgeDeleted(endpoint.id);
      this.forget(endpoint.id);
      this.logger.log(`endpoint ${endpoint.id}: deleted; its workers are gone and its record removed`);
    }
  }

  private async purgeQueue(endpoint: EndpointEntity, actor: Actor): Promise<void> {
    try {
      await this.commands.execute(Subjects.job.purge, { endpointId: endpoint.id }, actor, {
        commandId: deriveId(endpoint.id, 'purge-on-delete'),
      });
    } catch (error) {
      if (error instanceof DomainError && error.code !== ErrorCode.OwnerUnavailable) return;
      throw error;
    }
  }

  // ---- acting ---------------------------------------------------------------------------------------------------

  private async retireWorker(
    endpoint: EndpointEntity,
    worker: WorkerEntity,
    actor: Actor,
    now: Date,
    reason: string,
  ): Promise<void> {
    this.setDesired(worker, 'TERMINATED', now);
    await this.workers.save(worker);
    await this.record(endpoint, 'terminate', worker.podId, 0, 0, reason, {}, now);
    await this.podCommand(worker, 'terminate', actor);
  }

  private setDesired(worker: WorkerEntity, desired: WorkerDesired, now: Date): void {
    worker.desired = desired;
    worker.actionSeq += 1;
    worker.desiredSince = now;
  }

  /** `pod.cmd.create` (the row's command id, so issuing it again is harmless); false when it was refused. */
  private async createPod(endpoint: EndpointEntity, worker: WorkerEntity, actor: Actor): Promise<boolean> {
    this.inFlight.set(worker.podId, Date.now());
    try {
      const pod = await this.commands.execute(
        Subjects.pod.create,
        await this.podSpec(endpoint, worker),
        actor,
        {
          commandId: worker.createCommandId,
        },
      );
      await this.created(endpoint, worker, pod, actor);
      return true;
    } catch (error) {
      if (error instanceof DomainError && error.code !== ErrorCode.OwnerUnavailable) {
        this.spendBlocked(worker.endpointId, error);
        await this.workers.delete(worker.podId);
        await this.record(
          endpoint,
          'failed',
          worker.podId,
          0,
          0,
          `worker not created: ${error.message}`,
          {},
          new Date(),
        );
        return false;
      }
      throw error;
    } finally {
      this.inFlight.delete(worker.podId);
    }
  }

  /** pod-lifecycle answered the create: the row records it and the broker is told a worker is on its way. */
  private async created(
    endpoint: EndpointEntity,
    worker: WorkerEntity,
    pod: PodView,
    actor: Actor,
  ): Promise<void> {
    if (pod.id !== worker.podId) {
      throw new Error(
        `pod-lifecycle created pod ${pod.id} for worker ${worker.podId}: pod ids no longer derive alike`,
      );
    }
    worker.created = true;
    worker.podStatus = pod.status;
    await this.workers.save(worker);
    await this.register(endpoint, worker, actor);
  }

  /** Whether `error` is the owner's spend limit; if so, the endpoint starts no worker for a while. */
  private spendBlocked(endpointId: string, error: DomainError): boolean {
    if (error.code !== ErrorCode.SpendLimitReached) return false;
    this.spendBlockedUntil.set(endpointId, Date.now() + SPEND_LIMIT_BACKOFF_MS);
    return true;
  }

  /** Tells the broker a worker is on its way (it counts as initializing until it calls). */
  private async register(endpoint: EndpointEntity, worker: WorkerEntity, actor: Actor): Promise<void> {
    try {
      await this.commands.execute(
        Subjects.worker.register,
        { endpointId: endpoint.id, workerId: worker.podId },
        actor,
        {
          commandId: deriveId(worker.createCommandId, 'register'),
        },
      );
    } catch (error) {
      this.logger.warn(
        `endpoint ${endpoint.id}: registering worker ${worker.podId} failed: ${(error as Error).message}`,
      );
    }
  }

  /** Start, stop or terminate; the command id is derived from the worker and its action count. */
  private async podCommand(
    worker: WorkerEntity,
    action: 'start' | 'stop' | 'terminate',
    actor: Actor,
  ): Promise<boolean> {
    this.inFlight.set(worker.podId, Date.now());
    try {
      const pod = await this.commands.execute(Subjects.pod[action], { podId: worker.podId }, actor, {
        commandId: deriveId(worker.podId, `${action}/${worker.actionSeq}`),
      });
      if (worker.podStatus !== pod.status) {
        worker.podStatus = pod.status;
        await this.workers.save(worker);
      }
      return true;
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      if (error.code === ErrorCode.NotFound) {
        await this.workers.delete(worker.podId);
        return false;
      }
      this.logger.warn(`worker ${worker.podId}: ${action} refused: ${error.message}`);
      if (action === 'start' && this.spendBlocked(worker.endpointId, error)) {
        // Kept stopped (FLASHBOOT): it resumes once the owner's spend limit allows new work again.
        this.setDesired(worker, 'EXITED', new Date());
        await this.workers.save(worker);
      } else if (action === 'start') {
        // The stopped worker cannot come back (its host is full, say): replace it with a new one.
        this.setDesired(worker, 'TERMINATED', new Date());
        await this.workers.save(worker);
      }
      return false;
    } finally {
      this.inFlight.delete(worker.podId);
    }
  }

  /**
   * The worker pod: the endpoint's template, tiers, regions and volume, plus the worker environment; the workers'
   * key goes as the gateway sealed it (`secretEnv`), so neither this process nor the recorded command has it in clear.
   */
  private async podSpec(endpoint: EndpointEntity, worker: WorkerEntity): Promise<CreatePodCommand> {
    const placement = await this.placement.placementFor(endpoint);
    const env = workerEnv({
      endpointId: endpoint.id,
      podId: worker.podId,
      queueUrl: this.config.QUEUE_PUBLIC_URL,
      gpu: endpoint.gpuIds[0],
      pingIntervalMs: this.config.WORKER_PING_INTERVAL_MS,
    });
    return {
      name: `${endpoint.name.slice(0, 160)}-worker-${worker.podId.slice(0, 8)}`,
      templateId: endpoint.templateId,
      computeType: 'GPU',
      gpuTypeIds: placement.gpuTypeIds,
      gpuCount: endpoint.gpuCount,
      ...(placement.dataCenterIds.length ? { dataCenterIds: placement.dataCenterIds } : {}),
      ...(endpoint.networkVolumeId
        ? { networkVolumeId: endpoint.networkVolumeId, volumeMountPath: this.config.WORKER_VOLUME_MOUNT_PATH }
        : {}),
      env: { ...endpoint.env, ...env },
      secretEnv: workerSecretEnv(endpoint),
    };
  }

  private async record(
    endpoint: EndpointEntity,
    action: ScalingAction,
    podId: string | null,
    workersBefore: number,
    workersDesired: number,
    reason: string,
    inputs: Record<string, number | string | null>,
    at: Date,
  ): Promise<void> {
    autoscalerMetrics.decisions.inc({ action });
    this.logger.log(
      `endpoint ${endpoint.id}: ${action} worker ${podId ?? '-'} (${workersBefore} -> ${workersDesired}): ${reason}`,
    );
    await this.events.insert(
      Object.assign(new ScalingEventEntity(), {
        id: randomUUID(),
        endpointId: endpoint.id,
        at,
        action,
        podId,
        workersBefore,
        workersDesired,
        reason,
        inputs,
      } satisfies ScalingEventEntity),
    );
  }
}

function inputsOf(stats: QueueStats): Record<string, number> {
  return {
    inQueue: stats.inQueue,
    inQueueNonLowPriority: stats.inQueueNonLowPriority,
    inProgress: stats.inProgress,
    oldestQueuedAgeMs: stats.oldestQueuedAgeMs,
  };
}
