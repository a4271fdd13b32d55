import { Injectable } from '@nestjs/common';
import {
  Subjects,
  accrue,
  bucketStart,
  roundMoney,
  usageRange,
  type PodUsageRecord,
  type UsageBucket,
  type UsageGrouping,
  type UsageInterval,
  type UsageQuery,
} from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import type { PodUsageKind } from './pod-usage.entity.js';
import { PodUsageRepository, type FamilyTotalRow, type PodUsageRow } from './pod-usage.repository.js';

type ResourceGrouping = Exclude<UsageGrouping, 'family'>;

const BUCKET_MS: Record<UsageBucket, number> = { hour: 3_600_000, day: 86_400_000 };

/**
 * The caller's pod usage in a range, per bucket and per pod (standalone pods), cluster (members) or endpoint
 * (serverless workers): each pod counts in exactly one of the three. Open intervals accrue until now. Grouped by
 * `family`, the sums per family are computed by Postgres (a summary's read, whatever the size of the history).
 * With `limit`, a page of the records after `afterBucket`/`afterResourceId` in their order (ADR 46): a large
 * account's records do not fit in one reply.
 */
@Injectable()
export class PodUsageHandler {
  constructor(private readonly usage: PodUsageRepository) {}

  @QueryHandler(Subjects.pod.usage)
  async handle(ctx: QueryContext<UsageQuery>): Promise<PodUsageRecord[]> {
    const { payload } = ctx;
    const { from, to } = usageRange(payload);
    const after = cursorOf(payload);
    // A page's records are all after `after`, hence in its bucket or later: the accrual starts there (a bucket's
    // start, or the range's own start inside the first bucket).
    const pageFrom = after ? new Date(Math.max(from.getTime(), Date.parse(after.bucket))) : from;
    const now = new Date();
    const groupBy = payload.groupBy ?? 'pod';
    if (groupBy === 'family') {
      const until = new Date(Math.min(to.getTime(), now.getTime()));
      const totals =
        pageFrom < until
          ? await this.usage.familyTotals(ctx.actor.userId, pageFrom, until, payload.bucket)
          : [];
      const records = familyRecords(
        totals.filter((t) => !payload.resourceId || t.family === payload.resourceId),
      );
      return pageOf(records, after, payload.limit);
    }
    // The whole range's intervals, not the page's: a resource's GPU type is the one of all its pods in the range.
    const rows = (await this.usage.overlapping(ctx.actor.userId, from, to)).filter(
      (row) => !payload.resourceId || keyOf(row, groupBy) === payload.resourceId,
    );
    const gpuTypes = gpuTypesByKey(rows, groupBy);
    const intervals = (kind: PodUsageKind) =>
      rows.flatMap((row): UsageInterval[] => {
        const key = keyOf(row, groupBy);
        return row.kind === kind && key ? [{ ...row, key }] : [];
      });
    const pageUntil = (until: Date): PodUsageRecord[] => {
      const range = { from: pageFrom, to: until, now };
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
      return pageOf(records.sorted(), after, payload.limit);
    };
    if (payload.limit === undefined) return pageUntil(to);
    // A bucket holds at most one record per resource: a page's buckets are accrued, not the rest of the range (a
    // long range is read in many pages). The window doubles until it holds a page or reaches the range's end; its
    // buckets are whole, so the records in it are those of the whole answer.
    const step = BUCKET_MS[payload.bucket];
    for (let buckets = Math.ceil(payload.limit / Math.max(1, gpuTypes.size)) + 1; ; buckets *= 2) {
      const until = Math.min(to.getTime(), bucketStart(pageFrom.getTime(), payload.bucket) + buckets * step);
      const page = pageUntil(new Date(until));
      if (page.length === payload.limit || until >= to.getTime()) return page;
    }
  }
}

type Cursor = Pick<PodUsageRecord, 'bucket' | 'resourceId'>;

/** The records' order, that of the pages' keyset: by bucket, then resource. */
const byBucketThenResource = (a: Cursor, b: Cursor) =>
  a.bucket.localeCompare(b.bucket) || a.resourceId.localeCompare(b.resourceId);

/** The record a page follows, its bucket written as the records write theirs; none for the first page. */
function cursorOf(query: UsageQuery): Cursor | undefined {
  if (query.afterBucket === undefined) return undefined;
  return { bucket: new Date(query.afterBucket).toISOString(), resourceId: query.afterResourceId ?? '' };
}

/** The sorted records after `after`, at most `limit` of them (all without a limit: a caller that does not page). */
function pageOf(
  sorted: PodUsageRecord[],
  after: Cursor | undefined,
  limit: number | undefined,
): PodUsageRecord[] {
  const first = after ? sorted.findIndex((r) => byBucketThenResource(r, after) > 0) : 0;
  if (first < 0) return [];
  return sorted.slice(first, limit === undefined ? undefined : first + limit);
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
    return [...this.records.values()].sort(byBucketThenResource);
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
