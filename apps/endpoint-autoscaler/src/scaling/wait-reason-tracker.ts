import { Injectable, Logger } from '@nestjs/common';
import { ErrorCode, type PodView, type QueueStats, type WaitReason } from '@app/contracts';
import type { EndpointEntity } from '../endpoints/endpoint.entity.js';
import { EndpointThrottles } from '../endpoints/endpoint-throttles.js';
import type { WorkerEntity } from '../workers/worker.entity.js';
import {
  CRASH_LOOP_WINDOW_MS,
  endpointWaitReason,
  keepSince,
  readyWorkers,
  type WaitWorker,
} from './endpoint-wait-reason.js';
import { EndpointWaitReasonsRepository } from './endpoint-wait-reasons.repository.js';
import { exportWaitReason } from './autoscaler.metrics.js';
import { PlacementCatalog } from './placement-catalog.js';
import type { RecentRefusals } from './scaling-plan.types.js';

/** How long the leader trusts the reason it last wrote before reading the row again (another leader may have). */
const REMEMBER_MS = 10_000;

/** The tick's snapshot, as the reconciler took it. */
export interface WaitSnapshot {
  endpoint: EndpointEntity;
  workers: { worker: WorkerEntity; pod: PodView | null }[];
  stats: QueueStats | null;
  refusals: RecentRefusals;
  now: Date;
}

/**
 * Keeps each queue endpoint's wait reason current, once per tick of the control loop: the snapshot the plan was made
 * from, plus what only a wait needs (its latest refusal, its recent worker failures: each read only when it could
 * matter), through `endpointWaitReason`; written when it changed. Never fails the tick: a reason is an explanation,
 * not a decision.
 */
@Injectable()
export class WaitReasonTracker {
  private readonly logger = new Logger('autoscaler');
  private readonly remembered = new Map<string, { reason: WaitReason | null; until: number }>();

  constructor(
    private readonly reasons: EndpointWaitReasonsRepository,
    private readonly throttles: EndpointThrottles,
    private readonly placement: PlacementCatalog,
  ) {}

  async track(snapshot: WaitSnapshot): Promise<void> {
    try {
      await this.trackOrThrow(snapshot);
    } catch (error) {
      this.logger.warn(
        `endpoint ${snapshot.endpoint.id}: wait reason not updated: ${(error as Error).message}`,
      );
    }
  }

  /** An endpoint whose jobs cannot wait (deleted, load-balancing): its reason goes, if it had one. */
  async clear(endpointId: string, now: Date): Promise<void> {
    exportWaitReason(endpointId, null);
    try {
      if (!(await this.previous(endpointId, now))) return;
      await this.reasons.save(endpointId, null, now);
      this.remember(endpointId, null, now);
    } catch (error) {
      this.logger.warn(`endpoint ${endpointId}: wait reason not cleared: ${(error as Error).message}`);
    }
  }

  private async trackOrThrow({ endpoint, workers, stats, refusals, now }: WaitSnapshot): Promise<void> {
    const waitWorkers: WaitWorker[] = workers.map(({ worker, pod }) => ({
      podId: worker.podId,
      created: worker.created,
      desired: worker.desired,
      desiredSince: worker.desiredSince,
      pod,
    }));
    const ready = readyWorkers(waitWorkers, stats?.initializingWorkerIds ?? []).length > 0;
    // A refusal can hold the endpoint only if one was recorded lately (a resume's refusal, for FLASHBOOT ones).
    const refused =
      refusals.createRefusedAt !== null || refusals.spendLimitRefusedAt !== null || endpoint.flashBoot;
    const [previous, throttle, failures] = await Promise.all([
      this.previous(endpoint.id, now),
      refused ? this.throttles.throttled(endpoint.id, now) : null,
      // Failures matter only while no worker takes jobs.
      ready
        ? null
        : this.reasons.recentWorkerFailures(endpoint.id, new Date(now.getTime() - CRASH_LOOP_WINDOW_MS)),
    ]);
    const placement =
      throttle?.code === ErrorCode.CapacityUnavailable
        ? await this.placement.placementFor(endpoint).catch(() => null)
        : null;
    const next = keepSince(
      previous,
      endpointWaitReason({ endpoint, placement, workers: waitWorkers, stats, throttle, failures, now }),
    );
    exportWaitReason(endpoint.id, next?.code ?? null);
    if (sameReason(previous, next)) return;
    await this.reasons.save(endpoint.id, next, now);
    this.remember(endpoint.id, next, now);
  }

  private async previous(endpointId: string, now: Date): Promise<WaitReason | null> {
    const hit = this.remembered.get(endpointId);
    if (hit && hit.until > now.getTime()) return hit.reason;
    const reason = await this.reasons.current(endpointId);
    this.remember(endpointId, reason, now);
    return reason;
  }

  private remember(endpointId: string, reason: WaitReason | null, now: Date): void {
    this.remembered.set(endpointId, { reason, until: now.getTime() + REMEMBER_MS });
  }
}

function sameReason(a: WaitReason | null, b: WaitReason | null): boolean {
  if (!a || !b) return a === b;
  return (
    a.code === b.code &&
    a.message === b.message &&
    a.since === b.since &&
    canonical(a.details ?? null) === canonical(b.details ?? null)
  );
}

/** JSON with keys sorted: jsonb gives an object's keys back in its own order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)),
        )
      : v,
  );
}
