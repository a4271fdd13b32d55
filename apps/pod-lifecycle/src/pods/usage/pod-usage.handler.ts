import { Injectable } from '@nestjs/common';
import {
  Subjects,
  accrue,
  roundMoney,
  usageRange,
  type PodUsageRecord,
  type UsageGrouping,
  type UsageInterval,
  type UsageQuery,
} from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import type { PodUsageKind } from './pod-usage.entity.js';
import { PodUsageRepository, type FamilyTotalRow, type PodUsageRow } from './pod-usage.repository.js';

type ResourceGrouping = Exclude<UsageGrouping, 'family'>;

/**
 * The caller's pod usage in a range, per bucket and per pod (standalone pods), cluster (members) or endpoint
 * (serverless workers): each pod counts in exactly one of the three. Open intervals accrue until now. Grouped by
 * `family`, the sums per family are computed by Postgres (a summary's read, whatever the size of the history).
 */
@Injectable()
export class PodUsageHandler {
  constructor(private readonly usage: PodUsageRepository) {}

  @QueryHandler(Subjects.pod.usage)
  async handle(ctx: QueryContext<UsageQuery>): Promise<PodUsageRecord[]> {
    const { payload } = ctx;
    const { from, to } = usageRange(payload);
    const now = new Date();
    const groupBy = payload.groupBy ?? 'pod';
    if (groupBy === 'family') {
      const until = new Date(Math.min(to.getTime(), now.getTime()));
      const totals =
        from < until ? await this.usage.familyTotals(ctx.actor.userId, from, until, payload.bucket) : [];
      return familyRecords(totals.filter((t) => !payload.resourceId || t.family === payload.resourceId));
    }
    const rows = (await this.usage.overlapping(ctx.actor.userId, from, to)).filter(
      (row) => !payload.resourceId || keyOf(row, groupBy) === payload.resourceId,
    );
    const gpuTypes = gpuTypesByKey(rows, groupBy);
    const intervals = (kind: PodUsageKind) =>
      rows.flatMap((row): UsageInterval[] => {
        const key = keyOf(row, groupBy);
        return row.kind === kind && key ? [{ ...row, key }] : [];
      });
    const range = { from, to, now };
    const records = new RecordsByBucket((key) => gpuTypes.get(key) ?? null);
    for (const c of accrue(intervals('compute'), range, payload.bucket)) {
      Object.assign(records.at(c.bucket, c.key), {
        computeSeconds: c.seconds,
        gpuSeconds: c.unitSeconds,
        computeCost: c.cost,
      });
    }
    for (const d of accrue(intervals('disk'), range, payload.bucket)) {
      Object.assign(records.at(d.bucket, d.key), { diskGbSeconds: d.unitSeconds, diskCost: d.cost });
    }
    return records.sorted();
  }
}

/** Records keyed by bucket and resource, created empty on first use. */
class RecordsByBucket {
  private readonly records = new Map<string, PodUsageRecord>();

  constructor(private readonly gpuTypeOf: (key: string) => string | null) {}

  at(bucket: string, key: string): PodUsageRecord {
    const id = `${bucket} ${key}`;
    let found = this.records.get(id);
    if (!found) {
      found = {
        bucket,
        resourceId: key,
        gpuTypeId: this.gpuTypeOf(key),
        computeSeconds: 0,
        gpuSeconds: 0,
        computeCost: 0,
        diskGbSeconds: 0,
        diskCost: 0,
      };
      this.records.set(id, found);
    }
    return found;
  }

  sorted(): PodUsageRecord[] {
    return [...this.records.values()].sort(
      (a, b) => a.bucket.localeCompare(b.bucket) || a.resourceId.localeCompare(b.resourceId),
    );
  }
}

/** The family sums as records (no GPU type: a family mixes them); costs rounded as `accrue` rounds them. */
function familyRecords(totals: readonly FamilyTotalRow[]): PodUsageRecord[] {
  const records = new RecordsByBucket(() => null);
  for (const t of totals) {
    const record = records.at(new Date(t.bucketMs).toISOString(), t.family);
    if (t.kind === 'compute') {
      Object.assign(record, {
        computeSeconds: t.seconds,
        gpuSeconds: t.unitSeconds,
        computeCost: roundMoney(t.cost),
      });
    } else {
      Object.assign(record, { diskGbSeconds: t.unitSeconds, diskCost: roundMoney(t.cost) });
    }
  }
  return records.sorted();
}

/** What a row is reported under for the grouping; null when it belongs to another family. */
function keyOf(row: PodUsageRow, groupBy: ResourceGrouping): string | null {
  switch (groupBy) {
    case 'pod':
      return row.clusterId === null && row.endpointId === null ? row.podId : null;
    case 'cluster':
      return row.clusterId;
    case 'endpoint':
      return row.endpointId;
  }
}

/** Each resource's GPU type: null for CPU pods or when its pods differ. One pass over the rows. */
function gpuTypesByKey(rows: readonly PodUsageRow[], groupBy: ResourceGrouping): Map<string, string | null> {
  const types = new Map<string, string | null>();
  for (const row of rows) {
    const key = keyOf(row, groupBy);
    if (key === null) continue;
    if (!types.has(key)) types.set(key, row.gpuTypeId);
    else if (types.get(key) !== row.gpuTypeId) types.set(key, null);
  }
  return types;
}
