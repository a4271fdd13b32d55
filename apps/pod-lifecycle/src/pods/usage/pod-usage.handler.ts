import { Injectable } from '@nestjs/common';
import {
  Subjects,
  accrue,
  usageRange,
  type PodUsageRecord,
  type UsageGrouping,
  type UsageInterval,
  type UsageQuery,
} from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import type { PodUsageEntity } from './pod-usage.entity.js';
import { PodUsageRepository } from './pod-usage.repository.js';

/**
 * The caller's pod usage in a range, per bucket and per pod (standalone pods), cluster (members) or endpoint
 * (serverless workers): each pod counts in exactly one of the three. Open intervals accrue until now.
 */
@Injectable()
export class PodUsageHandler {
  constructor(private readonly usage: PodUsageRepository) {}

  @QueryHandler(Subjects.pod.usage)
  async handle(ctx: QueryContext<UsageQuery>): Promise<PodUsageRecord[]> {
    const { payload } = ctx;
    const { from, to } = usageRange(payload);
    const groupBy = payload.groupBy ?? 'pod';
    const rows = (await this.usage.overlapping(ctx.actor.userId, from, to)).filter(
      (row) => !payload.resourceId || keyOf(row, groupBy) === payload.resourceId,
    );
    const intervals = (kind: PodUsageEntity['kind']) =>
      rows.flatMap((row): UsageInterval[] => {
        const key = keyOf(row, groupBy);
        return row.kind === kind && key ? [{ ...row, key }] : [];
      });
    const range = { from, to, now: new Date() };
    const compute = accrue(intervals('compute'), range, payload.bucket);
    const disk = accrue(intervals('disk'), range, payload.bucket);
    const records = new Map<string, PodUsageRecord>();
    const record = (bucket: string, key: string): PodUsageRecord => {
      const id = `${bucket} ${key}`;
      const found = records.get(id);
      if (found) return found;
      const created: PodUsageRecord = {
        bucket,
        resourceId: key,
        gpuTypeId: gpuTypeOf(rows, groupBy, key),
        computeSeconds: 0,
        gpuSeconds: 0,
        computeCost: 0,
        diskGbSeconds: 0,
        diskCost: 0,
      };
      records.set(id, created);
      return created;
    };
    for (const c of compute) {
      Object.assign(record(c.bucket, c.key), {
        computeSeconds: c.seconds,
        gpuSeconds: c.unitSeconds,
        computeCost: c.cost,
      });
    }
    for (const d of disk)
      Object.assign(record(d.bucket, d.key), { diskGbSeconds: d.unitSeconds, diskCost: d.cost });
    return [...records.values()].sort(
      (a, b) => a.bucket.localeCompare(b.bucket) || a.resourceId.localeCompare(b.resourceId),
    );
  }
}

/** What a row is reported under for the grouping; null when it belongs to another family. */
function keyOf(row: PodUsageEntity, groupBy: UsageGrouping): string | null {
  switch (groupBy) {
    case 'pod':
      return row.clusterId === null && row.endpointId === null ? row.podId : null;
    case 'cluster':
      return row.clusterId;
    case 'endpoint':
      return row.endpointId;
  }
}

/** The GPU type of a resource's pods; null for CPU pods or when its pods differ. */
function gpuTypeOf(rows: readonly PodUsageEntity[], groupBy: UsageGrouping, key: string): string | null {
  const types = new Set(rows.filter((row) => keyOf(row, groupBy) === key).map((row) => row.gpuTypeId));
  return types.size === 1 ? [...types][0] : null;
}
