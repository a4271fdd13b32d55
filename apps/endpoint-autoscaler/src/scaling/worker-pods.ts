import { Injectable, Logger } from '@nestjs/common';
import {
  Domain,
  DomainError,
  ErrorCode,
  Subjects,
  commandOutcomeSubject,
  deriveId,
  priorityOf,
  type Actor,
  type CommandOutcome,
  type CreatePodCommand,
  type PodView,
} from '@app/contracts';
import { CommandBus, QueryBus } from '@app/messaging';
import { EndpointAutoscalerConfig } from '../endpoint-autoscaler.config.js';
import type { EndpointEntity } from '../endpoints/endpoint.entity.js';
import { workerEnv, workerSecretEnv } from '../workers/worker-env.js';
import type { WorkerEntity } from '../workers/worker.entity.js';
import { PlacementCatalog } from './placement-catalog.js';
import type { PodAction } from './scaling-plan.js';

/** What pod-lifecycle answered a worker's command. An unanswered command throws (the tick fails, and retries). */
export type PodAnswer =
  | { kind: 'applied'; pod: PodView }
  | { kind: 'not-found' }
  | { kind: 'refused'; code: string; message: string };

/**
 * Worker pods are the endpoint owner's, asked for by the system; `reason` says why, for the owner's audit trail
 * (`autoscaler: scale-up: …`).
 */
export function actorFor(endpoint: Pick<EndpointEntity, 'ownerId'>, reason?: string): Actor {
  return reason
    ? { userId: endpoint.ownerId, kind: 'system', reason }
    : { userId: endpoint.ownerId, kind: 'system' };
}

/** Why the autoscaler issues a worker's command, as the actor's reason: the direction, then the plan's reason. */
export function scalingReason(direction: 'scale-up' | 'scale-down' | 'reissue', planReason: string): string {
  return `autoscaler: ${direction}: ${planReason}`.slice(0, 300);
}

/**
 * The commands the autoscaler sends for its workers, with ids derived from the worker row (create: the row's
 * `createCommandId`; start/stop/terminate: the pod id and the row's action count), so sending one again is
 * harmless. Touches no table: the applier records what the answers mean.
 */
@Injectable()
export class WorkerPods {
  private readonly logger = new Logger('autoscaler');

  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    private readonly placement: PlacementCatalog,
    private readonly config: EndpointAutoscalerConfig,
  ) {}

  /** `pod.cmd.create`; refused when pod-lifecycle (or the catalog, for the placement) said no. */
  async create(endpoint: EndpointEntity, worker: WorkerEntity, reason?: string): Promise<PodAnswer> {
    try {
      const pod = await this.commands.execute(
        Subjects.pod.create,
        await this.podSpec(endpoint, worker),
        actorFor(endpoint, reason),
        { commandId: worker.createCommandId },
      );
      return { kind: 'applied', pod };
    } catch (error) {
      if (error instanceof DomainError && error.code !== ErrorCode.OwnerUnavailable) {
        return { kind: 'refused', code: error.code, message: error.message };
      }
      throw error;
    }
  }

  /** The outcome pod-lifecycle recorded for the worker's create, if it applied it (null: not, or no answer). */
  async recordedCreate(endpoint: EndpointEntity, worker: WorkerEntity): Promise<PodAnswer | null> {
    const recorded = await this.queries
      .raw<CommandOutcome<PodView> | null>(
        commandOutcomeSubject(Domain.Pod),
        { commandId: worker.createCommandId },
        actorFor(endpoint),
      )
      .catch(() => null);
    if (!recorded) return null;
    if (recorded.ok) return { kind: 'applied', pod: recorded.value };
    return { kind: 'refused', code: recorded.error.code, message: recorded.error.message };
  }

  /** Start, stop or terminate; the command id is derived from the worker and its action count. */
  async command(
    endpoint: EndpointEntity,
    worker: WorkerEntity,
    action: PodAction,
    reason?: string,
  ): Promise<PodAnswer> {
    try {
      const pod = await this.commands.execute(
        Subjects.pod[action],
        { podId: worker.podId },
        actorFor(endpoint, reason),
        {
          commandId: deriveId(worker.podId, `${action}/${worker.actionSeq}`),
        },
      );
      return { kind: 'applied', pod };
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      if (error.code === ErrorCode.NotFound) return { kind: 'not-found' };
      this.logger.warn(`worker ${worker.podId}: ${action} refused: ${error.message}`);
      return { kind: 'refused', code: error.code, message: error.message };
    }
  }

  /**
   * Tells the broker a worker is on its way (it counts as initializing until it calls); a failure is logged. It
   * carries when the worker was decided (its row's creation) and, when known, when its create was answered
   * (`placedAt`): the broker times the cold start's placement phase from them.
   */
  async register(endpoint: EndpointEntity, worker: WorkerEntity, placedAt?: Date): Promise<void> {
    try {
      await this.commands.execute(
        Subjects.worker.register,
        {
          endpointId: endpoint.id,
          workerId: worker.podId,
          decidedAt: worker.createdAt.toISOString(),
          ...(placedAt ? { placedAt: placedAt.toISOString() } : {}),
        },
        actorFor(endpoint),
        { commandId: deriveId(worker.createCommandId, 'register') },
      );
    } catch (error) {
      this.logger.warn(
        `endpoint ${endpoint.id}: registering worker ${worker.podId} failed: ${(error as Error).message}`,
      );
    }
  }

  /** A deleted endpoint's queue is purged; only an owner that does not answer makes the tick fail. */
  async purgeQueue(endpoint: EndpointEntity): Promise<void> {
    try {
      await this.commands.execute(
        Subjects.job.purge,
        { endpointId: endpoint.id },
        actorFor(endpoint, 'autoscaler: the endpoint was deleted; its queue goes with it'),
        { commandId: deriveId(endpoint.id, 'purge-on-delete') },
      );
    } catch (error) {
      if (error instanceof DomainError && error.code !== ErrorCode.OwnerUnavailable) return;
      throw error;
    }
  }

  /**
   * A deleted endpoint whose workers are gone and whose queue is purged: its record is removed by
   * `endpoint.cmd.remove` (an id derived from the endpoint, so asking again on a later tick is harmless); only an
   * owner that does not answer makes the tick fail, and the next tick asks again.
   */
  async removeRecord(endpoint: EndpointEntity): Promise<void> {
    try {
      await this.commands.execute(Subjects.endpoint.remove, { id: endpoint.id }, actorFor(endpoint), {
        commandId: deriveId(endpoint.id, 'remove-on-delete'),
      });
    } catch (error) {
      if (error instanceof DomainError && error.code !== ErrorCode.OwnerUnavailable) {
        this.logger.warn(`endpoint ${endpoint.id}: its record was not removed: ${error.message}`);
        return;
      }
      throw error;
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
      type: endpoint.type,
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
      // The endpoint's priority (a worker is never interruptible).
      priority: priorityOf(endpoint.priority),
    };
  }
}
