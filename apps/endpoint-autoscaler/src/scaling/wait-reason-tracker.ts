import { Injectable, Logger } from '@nestjs/common';
import { ErrorCode, type QueueStats, type WaitReason } from '@app/contracts';
import type { EndpointEntity } from '../endpoints/endpoint.entity.js';
import { EndpointThrottles } from '../endpoints/endpoint-throttles.js';
import type { WorkerEntity } from '../workers/worker.entity.js';
import {
  CRASH_LOOP_WINDOW_MS,
  endpointWaitReason,
  keepSince,
  readyWorkers,
  type WaitWorker,
  type WorkerFailures,
} from './endpoint-wait-reason.js';
import { EndpointWaitReasonsRepository } from './endpoint-wait-reasons.repository.js';
import { exportWaitReason } from './autoscaler.metrics.js';
import { PlacementCatalog } from './placement-catalog.js';
import { needsQueueStats, type RecentRefusals } from './scaling-plan.js';

/** One endpoint's part of the tick's snapshot, as the reconciler planned from it. */
export interface WaitSnapshot {
  endpoint: EndpointEntity;
  workers: { worker: WorkerEntity; pod: WaitWorker['pod'] }[];
  stats: QueueStats | null;
  refusals: RecentRefusals;
}

/**
 * Keeps each queue endpoint's wait reason current, once per tick of the control loop: the snapshot the plans were
 * made from, plus what only a wait needs (each endpoint's latest refusal, its recent worker failures: each read only
 * when it could matter, the failures of every such endpoint in one statement), through `endpointWaitReason`; the
 * reasons the tick starts from are read in one statement too, and a reason is written only when it changed. An
 * endpoint whose jobs cannot wait (deleted, load-balancing) loses the reason it had. Never fails the tick: a reason
 * is an explanation, not a decision.
 */
@Injectable()
export class WaitReasonTracker {
  private readonly logger = new Logger('autoscaler');

  constructor(
    private readonly reasons: EndpointWaitReasonsRepository,
    private readonly throttles: EndpointThrottles,
    private readonly placement: PlacementCatalog,
  ) {}

  async track(snapshots: WaitSnapshot[], now: Date): Promise<void> {
    let previous: Map<string, WaitReason>;
    let failures: Map<string, WorkerFailures>;
    const queued = snapshots.filter(({ endpoint }) => needsQueueStats(endpoint));
    try {
      // Failures matter only while no worker takes jobs.
      const idle = queued.filter(
        (s) => !readyWorkers(waitWorkers(s), s.stats?.initializingWorkerIds ?? []).length,
      );
      [previous, failures] = await Promise.all([
        this.reasons.currentAll(),
        this.reasons.recentWorkerFailures(
          idle.map((s) => s.endpoint.id),
          new Date(now.getTime() - CRASH_LOOP_WINDOW_MS),
        ),
      ]);
    } catch (error) {
      this.logger.warn(`wait reasons not updated this tick: ${(error as Error).message}`);
      return;
    }
    await Promise.all(
      snapshots.map(async (snapshot) => {
        const { endpoint } = snapshot;
        const before = previous.get(endpoint.id) ?? null;
        try {
          const next = needsQueueStats(endpoint)
            ? await this.reasonOf(snapshot, before, failures.get(endpoint.id) ?? null, now)
            : null;
          exportWaitReason(endpoint.id, next?.code ?? null);
          if (!sameReason(before, next)) await this.reasons.save(endpoint.id, next, now);
        } catch (error) {
          this.logger.warn(`endpoint ${endpoint.id}: wait reason not updated: ${(error as Error).message}`);
        }
      }),
    );
  }

  private async reasonOf(
    snapshot: WaitSnapshot,
    previous: WaitReason | null,
    failures: WorkerFailures | null,
    now: Date,
  ): Promise<WaitReason | null> {
    const { endpoint, stats, refusals } = snapshot;
    const workers = waitWorkers(snapshot);
    // A refusal can hold the endpoint only if one was recorded lately (a resume's refusal, for FLASHBOOT ones).
    const refused =
      refusals.createRefusedAt !== null || refusals.spendLimitRefusedAt !== null || endpoint.flashBoot;
    const throttle = refused ? await this.throttles.throttled(endpoint.id, now) : null;
    const placement =
      throttle?.code === ErrorCode.CapacityUnavailable
        ? await this.placement.placementFor(endpoint).catch(() => null)
        : null;
    return keepSince(
      previous,
      endpointWaitReason({ endpoint, placement, workers, stats, throttle, failures, now }),
    );
  }
}

function waitWorkers({ workers }: Pick<WaitSnapshot, 'workers'>): WaitWorker[] {
  return workers.map(({ worker, pod }) => ({
    podId: worker.podId,
    created: worker.created,
    desired: worker.desired,
    desiredSince: worker.desiredSince,
    pod,
  }));
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
