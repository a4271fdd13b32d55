import { Injectable } from '@nestjs/common';
import { DomainError, ErrorCode, Subjects, type Actor, type PodView } from '@app/contracts';
import { QueryBus } from '@app/messaging';
import { EndpointAutoscalerConfig } from '../endpoint-autoscaler.config.js';
import type { EndpointEntity } from '../endpoints/endpoint.entity.js';
import type { WorkerEntity } from '../workers/worker.entity.js';
import { DrainingPodsRepository } from '../workers/draining-pods.repository.js';
import { WorkersRepository } from '../workers/workers.repository.js';
import { autoscalerMetrics, exportScaler } from './autoscaler.metrics.js';
import { LbLoadBoard } from './lb-load-board.js';
import { planSettings } from './plan-settings.js';
import { ScalingApplier } from './scaling-applier.js';
import { ScalingEventsRepository } from './scaling-events.repository.js';
import {
  needsLbLoad,
  needsQueueStats,
  planScaling,
  refusalWindowMs,
  type PlanSettings,
  type RecentRefusals,
} from './scaling-plan.js';
import { WaitReasonTracker } from './wait-reason-tracker.js';
import { actorFor } from './worker-pods.js';

const NO_REFUSALS: RecentRefusals = { createRefusedAt: null, spendLimitRefusedAt: null };

/**
 * One endpoint, one tick: snapshot (the worker rows, each worker's pod, the queue or, for a load-balancing
 * endpoint, the gateways' latest load reports, the recent refusals), plan
 * (`planScaling`, pure), apply (`ScalingApplier`). Level-triggered: the plan is made from what the database and
 * the owners show now, so a crash, a restart, a new leader or a lost message heals on a later tick. Nothing is
 * kept in memory between ticks: the applier awaits every command it issues and ticks never overlap, so no command
 * is in flight when the next snapshot is taken; the back-offs are read from the failed scaling events.
 */
@Injectable()
export class EndpointReconciler {
  private readonly settings: PlanSettings;

  constructor(
    private readonly workers: WorkersRepository,
    private readonly draining: DrainingPodsRepository,
    private readonly events: ScalingEventsRepository,
    private readonly queries: QueryBus,
    private readonly applier: ScalingApplier,
    private readonly lbLoad: LbLoadBoard,
    private readonly waitReasons: WaitReasonTracker,
    config: EndpointAutoscalerConfig,
  ) {
    this.settings = planSettings(config);
  }

  async reconcile(endpoint: EndpointEntity, now: Date): Promise<void> {
    const actor = actorFor(endpoint);
    const rows = await this.workers.listByEndpoint(endpoint.id);
    const queued = needsQueueStats(endpoint);
    const balanced = needsLbLoad(endpoint);
    const [workers, stats, refusals] = await Promise.all([
      this.observe(rows, actor),
      queued ? this.queries.query(Subjects.job.queueStats, { endpointId: endpoint.id }, actor) : null,
      queued || balanced ? this.recentRefusals(endpoint.id, now) : NO_REFUSALS,
    ]);
    const lbLoad = balanced ? this.lbLoad.load(endpoint.id) : null;
    const plan = planScaling({ endpoint, workers, stats, lbLoad, refusals, now, settings: this.settings });
    if (plan.counts) {
      autoscalerMetrics.desiredWorkers.set({ endpoint: endpoint.id }, plan.counts.desired);
      autoscalerMetrics.currentWorkers.set({ endpoint: endpoint.id }, plan.counts.current);
    }
    if (queued) exportScaler(endpoint.id, endpoint.scalerType, endpoint.scalerValue);
    // Why its jobs wait, from the same snapshot (before the apply, which may fail the tick).
    if (queued) await this.waitReasons.track({ endpoint, workers, stats, refusals, now });
    else await this.waitReasons.clear(endpoint.id, now);
    await this.applier.apply(endpoint, rows, plan, now);
  }

  /**
   * Each worker's pod as pod-lifecycle shows it (null when it was never created or is gone), and whether it is on a
   * draining host.
   */
  private async observe(
    rows: WorkerEntity[],
    actor: Actor,
  ): Promise<{ worker: WorkerEntity; pod: PodView | null; draining: boolean }[]> {
    const draining = await this.draining.draining(rows.map((row) => row.podId));
    return Promise.all(
      rows.map(async (worker) => {
        const marked = draining.has(worker.podId);
        if (!worker.created) return { worker, pod: null, draining: marked };
        try {
          const pod = await this.queries.query(Subjects.pod.get, { podId: worker.podId }, actor);
          return { worker, pod, draining: marked };
        } catch (error) {
          if (error instanceof DomainError && error.code === ErrorCode.NotFound) {
            return { worker, pod: null, draining: marked };
          }
          throw error;
        }
      }),
    );
  }

  private recentRefusals(endpointId: string, now: Date): Promise<RecentRefusals> {
    return this.events.recentRefusals(endpointId, new Date(now.getTime() - refusalWindowMs(this.settings)));
  }
}
