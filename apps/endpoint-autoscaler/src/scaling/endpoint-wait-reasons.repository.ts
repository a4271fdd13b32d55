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

  /** Every endpoint's current reason (the control loop's tick: one read for all). */
  async currentAll(): Promise<Map<string, WaitReason>> {
    const rows = await this.dataSource.manager.find(EndpointWaitReasonEntity);
    return new Map(rows.map((row) => [row.endpointId, toWaitReason(row)]));
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
   * Each endpoint's workers the loop terminated since `since` because they failed (their pod ERROR, or EXITED by
   * itself): how many, the first and last, and the last one's sentence (an endpoint with none is absent). A host
   * taken out of service (HOST_*) is not the workers' fault and does not count. One statement for the endpoints
   * given, each walking the (endpoint_id, at) index over the window only.
   */
  async recentWorkerFailures(endpointIds: string[], since: Date): Promise<Map<string, WorkerFailures>> {
    if (!endpointIds.length) return new Map();
    const rows = await this.dataSource.query<
      {
        endpointId: string;
        count: number;
        firstAt: Date;
        lastAt: Date;
        lastReason: string;
        lastPodId: string | null;
      }[]
    >(
      `SELECT endpoint_id AS "endpointId", count(*)::int AS count, min(at) AS "firstAt", max(at) AS "lastAt",
              (array_agg(reason ORDER BY at DESC, id DESC))[1] AS "lastReason",
              (array_agg(pod_id ORDER BY at DESC, id DESC))[1] AS "lastPodId"
       FROM endpoint_autoscaler.scaling_events
       WHERE endpoint_id = ANY($1) AND action = 'terminate' AND at > $2
         AND (starts_with(reason, $3) OR starts_with(reason, $4))
         AND NOT starts_with(reason, $3 || 'HOST_')
       GROUP BY endpoint_id`,
      [endpointIds, since, FAILED, EXITED],
    );
    return new Map(
      rows.map(({ endpointId, lastReason, ...row }) => [
        endpointId,
        {
          ...row,
          lastReason: lastReason.startsWith(FAILED)
            ? lastReason.slice(FAILED.length)
            : lastReason.slice(EXITED.length),
        },
      ]),
    );
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
