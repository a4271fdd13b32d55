import { Subjects, type Actor, type ListPodsQuery, type PodView } from '@app/contracts';
import type { QueryBus } from '@app/messaging';
import { readAllPages } from './pages.js';

/**
 * Pods per `pod.qry.list` reply. A reply is one NATS message (max_payload: 1 MB by default) and a pod's view is
 * about a kilobyte, a few with long env or ports; 250 keep a page far under it, and a list of a few hundred pods
 * (most accounts') one request.
 */
export const POD_PAGE = 250;

/**
 * Every pod the query names, read page after page (a keyset on the list's order: pod-lifecycle's `afterId`): the
 * routes that answer a whole list (`GET /v2/pods`, `/v1/pods`, GraphQL `myself { pods }`) work for an account of
 * any size.
 */
export function listAllPods(
  queries: QueryBus,
  query: Omit<ListPodsQuery, 'limit' | 'afterId'>,
  actor: Actor,
): Promise<PodView[]> {
  return readAllPages(POD_PAGE, (limit, after) =>
    queries.query(Subjects.pod.list, { ...query, limit, ...(after ? { afterId: after.id } : {}) }, actor),
  );
}
