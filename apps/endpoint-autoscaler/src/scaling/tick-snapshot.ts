import { Injectable } from '@nestjs/common';
import { Subjects, type Actor, type PodStateView, type QueueStats } from '@app/contracts';
import { QueryBus } from '@app/messaging';
import { EndpointAutoscalerConfig } from '../endpoint-autoscaler.config.js';
import type { EndpointEntity } from '../endpoints/endpoint.entity.js';
import type { WorkerEntity } from '../workers/worker.entity.js';
import { DrainingPodsRepository } from '../workers/draining-pods.repository.js';
import { WorkersRepository } from '../workers/workers.repository.js';
import { LbLoadBoard } from './lb-load-board.js';
import { planSettings } from './plan-settings.js';
import { ScalingEventsRepository } from './scaling-events.repository.js';
import {
  needsLbLoad,
  needsQueueStats,
  refusalWindowMs,
  type PlanLbLoad,
  type PlanSettings,
  type RecentRefusals,
} from './scaling-plan.js';

const SYSTEM: Actor = { userId: 'system:endpoint-autoscaler', kind: 'system' };
const NO_REFUSALS: RecentRefusals = { createRefusedAt: null, spendLimitRefusedAt: null };
/** Ids per query, so that each answer stays far below NATS's max_payload (a pod state is ~150 bytes). */
const PODS_PER_QUERY = 2_000;
const ENDPOINTS_PER_QUERY = 1_000;

/** A worker row, its pod as pod-lifecycle shows it (null: never created, or gone), and whether its host drains. */
export interface ObservedWorker {
  worker: WorkerEntity;
  pod: PodStateView | null;
  draining: boolean;
}

/** What the plan of one endpoint is made from. */
export interface EndpointSnapshot {
  rows: WorkerEntity[];
  workers: ObservedWorker[];
  /** The broker's counts; null for an endpoint that runs no queue (deleted, load-balancing). */
  stats: QueueStats | null;
  refusals: RecentRefusals;
  lbLoad: PlanLbLoad | null;
}

/**
 * The control loop's view of every endpoint at the start of a tick, read in a fixed number of round trips whatever
 * the number of endpoints (docs/adr/0044): every worker row, then at once their draining marks, their pods'
 * states (`pod.qry.states`), the queue statistics of every queue endpoint (`job.qry.queue-stats-many`) and the
 * recent refusals of all; the gateways' load of LB endpoints is in memory. The worker rows are read before the
 * pods, as one endpoint's reconcile did: a pod is never seen without its row.
 */
@Injectable()
export class TickSnapshots {
  private readonly settings: PlanSettings;

  constructor(
    private readonly workers: WorkersRepository,
    private readonly draining: DrainingPodsRepository,
    private readonly events: ScalingEventsRepository,
    private readonly queries: QueryBus,
    private readonly lbLoad: LbLoadBoard,
    config: EndpointAutoscalerConfig,
  ) {
    this.settings = planSettings(config);
  }

  async take(endpoints: EndpointEntity[], now: Date): Promise<Map<string, EndpointSnapshot>> {
    const rows = await this.workers.listAll();
    const queued = endpoints.filter(needsQueueStats).map((e) => e.id);
    const refusable = endpoints.filter((e) => needsQueueStats(e) || needsLbLoad(e)).map((e) => e.id);
    const since = new Date(now.getTime() - refusalWindowMs(this.settings));
    const [draining, pods, stats, refusals] = await Promise.all([
      this.draining.draining(rows.map((row) => row.podId)),
      this.podStates(rows.filter((row) => row.created).map((row) => row.podId)),
      this.queueStats(queued),
      this.events.recentRefusals(refusable, since),
    ]);
    const byEndpoint = new Map<string, WorkerEntity[]>();
    for (const row of rows) {
      const list = byEndpoint.get(row.endpointId);
      if (list) list.push(row);
      else byEndpoint.set(row.endpointId, [row]);
    }
    return new Map(
      endpoints.map((endpoint) => {
        const own = byEndpoint.get(endpoint.id) ?? [];
        const snapshot: EndpointSnapshot = {
          rows: own,
          workers: own.map((worker) => ({
            worker,
            pod: worker.created ? (pods.get(worker.podId) ?? null) : null,
            draining: draining.has(worker.podId),
          })),
          stats: stats.get(endpoint.id) ?? null,
          refusals: refusals.get(endpoint.id) ?? NO_REFUSALS,
          lbLoad: needsLbLoad(endpoint) ? this.lbLoad.load(endpoint.id) : null,
        };
        return [endpoint.id, snapshot];
      }),
    );
  }

  private async podStates(podIds: string[]): Promise<Map<string, PodStateView>> {
    const answers = await Promise.all(
      chunks(podIds, PODS_PER_QUERY).map((ids) =>
        this.queries.query(Subjects.pod.states, { podIds: ids }, SYSTEM),
      ),
    );
    return new Map(answers.flat().map((pod) => [pod.id, pod]));
  }

  private async queueStats(endpointIds: string[]): Promise<Map<string, QueueStats>> {
    const answers = await Promise.all(
      chunks(endpointIds, ENDPOINTS_PER_QUERY).map((ids) =>
        this.queries.query(Subjects.job.queueStatsMany, { endpointIds: ids }, SYSTEM),
      ),
    );
    return new Map(answers.flat().map((stats) => [stats.endpointId, stats]));
  }
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
