import { Injectable } from '@nestjs/common';
import { EndpointAutoscalerConfig } from '../endpoint-autoscaler.config.js';
import type { EndpointEntity } from '../endpoints/endpoint.entity.js';
import { autoscalerMetrics, exportScaler } from './autoscaler.metrics.js';
import { planSettings } from './plan-settings.js';
import { ScalingApplier } from './scaling-applier.js';
import { needsQueueStats, planScaling, type PlanSettings, type ScalingPlan } from './scaling-plan.js';
import type { EndpointSnapshot } from './tick-snapshot.js';

/**
 * One endpoint, one tick: plan (`planScaling`, pure) from the tick's snapshot (tick-snapshot.ts), then apply
 * (`ScalingApplier`) only when the plan changes something. Level-triggered: the plan is made from what the
 * database and the owners show now, so a crash, a restart, a new leader or a lost message heals on a later tick.
 * Nothing is kept in memory between ticks: the applier awaits every command it issues and ticks never overlap, so
 * no command is in flight when the next snapshot is taken; the back-offs are read from the failed scaling events.
 */
@Injectable()
export class EndpointReconciler {
  private readonly settings: PlanSettings;

  constructor(
    private readonly applier: ScalingApplier,
    config: EndpointAutoscalerConfig,
  ) {
    this.settings = planSettings(config);
  }

  /** The endpoint's plan (and its gauges); no I/O. */
  plan(endpoint: EndpointEntity, snapshot: EndpointSnapshot, now: Date): ScalingPlan {
    const { workers, stats, lbLoad, refusals } = snapshot;
    const plan = planScaling({ endpoint, workers, stats, lbLoad, refusals, now, settings: this.settings });
    if (plan.counts) {
      autoscalerMetrics.desiredWorkers.set({ endpoint: endpoint.id }, plan.counts.desired);
      autoscalerMetrics.currentWorkers.set({ endpoint: endpoint.id }, plan.counts.current);
    }
    if (needsQueueStats(endpoint)) exportScaler(endpoint.id, endpoint.scalerType, endpoint.scalerValue);
    return plan;
  }

  /** Carries the plan out; a plan that changes nothing costs nothing (most endpoints, on most ticks). */
  async apply(
    endpoint: EndpointEntity,
    snapshot: EndpointSnapshot,
    plan: ScalingPlan,
    now: Date,
  ): Promise<void> {
    // A plan that only holds back (a back-off) goes on for its log line; the applier writes nothing for it.
    if (changesNothing(plan) && !plan.held.length) return;
    await this.applier.apply(endpoint, snapshot.rows, plan, now);
  }
}

/** No row to write, no command to send: the applier would neither commit nor issue anything. */
export function changesNothing(plan: ScalingPlan): boolean {
  return (
    !plan.purgeQueue &&
    !plan.removeEndpoint &&
    !plan.create.length &&
    !plan.resume.length &&
    !plan.stop.length &&
    !plan.terminate.length &&
    !plan.reissue.length &&
    !plan.drop.length &&
    !plan.refresh.length
  );
}
