import { Injectable } from '@nestjs/common';
import type { WaitReason, WaitReasonCode } from '@app/contracts';
import { DataSource } from 'typeorm';
import { EndpointWaitReasons } from '../endpoints/endpoint-wait-reasons.js';
import type { WorkerFailures } from './endpoint-wait-reason.js';
import { EndpointWaitReasonEntity } from './endpoint-wait-reason.entity.js';

/** The reasons the plan gives a worker it terminates because it failed (scaling-plan.ts, cleanUp). */
const FAILED = 'worker pod failed: ';
const EXITED = 'worker exited by itself: ';

/** The control loop's last judgement of why each endpoint's jobs wait: one primary-key read or write each. */
@Injectable()
export class EndpointWaitReasonsRepository extends EndpointWaitReasons {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async current(endpointId: string): Promise<WaitReason | null> {
    const row = await this.dataSource.manager.findOneBy(EndpointWaitReasonEntity, { endpointId });
    return row ? toWaitReason(row) : null;
  }

  /** Replaces the endpoint's reason (null: removes it). */
  async save(endpointId: string, reason: WaitReason | null, at: Date): Promise<void> {
    if (!reason) {
      await this.dataSource.manager.delete(EndpointWaitReasonEntity, { endpointId });
      return;
    }
    const row: EndpointWaitReasonEntity = {
      endpointId,
      code: reason.code,
      message: reason.message,
      since: new Date(reason.since),
      details: reason.details ?? null,
      updatedAt: at,
    };
    await this.dataSource.manager.save(EndpointWaitReasonEntity, row);
  }

  /**
   * The endpoint's workers the loop terminated since `since` because they failed (their pod ERROR, or EXITED by
   * itself): how many, the first and last, and the last one's sentence. A host taken out of service (HOST_*) is
   * not the workers' fault and does not count. Walks the (endpoint_id, at) index over the window only.
   */
  async recentWorkerFailures(endpointId: string, since: Date): Promise<WorkerFailures | null> {
    const rows = await this.dataSource.query<
      { count: number; firstAt: Date; lastAt: Date; lastReason: string; lastPodId: string | null }[]
    >(
      `SELECT count(*)::int AS count, min(at) AS "firstAt", max(at) AS "lastAt",
              (array_agg(reason ORDER BY at DESC, id DESC))[1] AS "lastReason",
              (array_agg(pod_id ORDER BY at DESC, id DESC))[1] AS "lastPodId"
       FROM endpoint_autoscaler.scaling_events
       WHERE endpoint_id = $1 AND action = 'terminate' AND at > $2
         AND (starts_with(reason, $3) OR starts_with(reason, $4))
         AND NOT starts_with(reason, $3 || 'HOST_')`,
      [endpointId, since, FAILED, EXITED],
    );
    const row = rows[0];
    if (!row || !row.count) return null;
    const lastReason = row.lastReason.startsWith(FAILED)
      ? row.lastReason.slice(FAILED.length)
      : row.lastReason.slice(EXITED.length);
    return {
      count: row.count,
      firstAt: row.firstAt,
      lastAt: row.lastAt,
      lastPodId: row.lastPodId,
      lastReason,
    };
  }
}

function toWaitReason(row: EndpointWaitReasonEntity): WaitReason {
  const reason: WaitReason = {
    code: row.code as WaitReasonCode,
    message: row.message,
    since: row.since.toISOString(),
  };
  return row.details ? { ...reason, details: row.details } : reason;
}
