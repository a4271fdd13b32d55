import { Subjects, type Actor, type PodUsageRecord, type UsageQuery } from '@app/contracts';
import type { QueryBus } from '@app/messaging';
import { forEachPage, readAllPages } from './pages.js';

/**
 * Records per `pod.qry.usage` reply. A record (one resource in one bucket) is 200 to 300 bytes of JSON; 1,000 keep
 * a page near a third of the bus's 1 MB message, and most accounts' usage one request.
 */
export const USAGE_PAGE = 1000;

type PodUsageFilter = Omit<UsageQuery, 'limit' | 'afterBucket' | 'afterResourceId'>;

/**
 * Every record of the caller's pod usage the query names, read page after page (a keyset on the records' order:
 * bucket, then resource): the billing routes answer 1,200 pods over 24 hourly buckets (~30,000 records, several
 * MB) as they answer a few.
 */
export function podUsageRecords(
  queries: QueryBus,
  query: PodUsageFilter,
  actor: Actor,
): Promise<PodUsageRecord[]> {
  return readAllPages(USAGE_PAGE, readUsagePage(queries, query, actor));
}

/** The same records handed over page by page (`forEachPage`), for a caller that does not keep them all. */
export function forEachPodUsagePage(
  queries: QueryBus,
  query: PodUsageFilter,
  actor: Actor,
  onPage: (page: PodUsageRecord[]) => void,
): Promise<void> {
  return forEachPage(USAGE_PAGE, readUsagePage(queries, query, actor), onPage);
}

function readUsagePage(queries: QueryBus, query: PodUsageFilter, actor: Actor) {
  return (limit: number, after: PodUsageRecord | undefined): Promise<PodUsageRecord[]> =>
    queries.query(
      Subjects.pod.usage,
      { ...query, limit, ...(after ? { afterBucket: after.bucket, afterResourceId: after.resourceId } : {}) },
      actor,
    );
}
