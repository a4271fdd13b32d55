import {
  Headers,
  MAX_POD_PAGE,
  Subjects,
  type Actor,
  type ListPodsQuery,
  type PodV2List,
  type PodView,
} from '@app/contracts';
import type { QueryBus } from '@app/messaging';
import { jsonBody, type JsonBody } from '../edge/json-body.js';
import { readAllPages } from './pages.js';

/**
 * Pods per `pod.qry.list` reply. A reply is one NATS message (max_payload: 1 MB by default) and a pod's view is
 * about a kilobyte, a few with long env or ports; 250 keep a page far under it, and a list of a few hundred pods
 * (most accounts') one request.
 */
export const POD_PAGE = 250;

type PodListFilter = Omit<ListPodsQuery, 'limit' | 'afterId'>;

/**
 * Every pod the query names, read page after page (a keyset on the list's order: pod-lifecycle's `afterId`): the
 * routes that answer a whole list (`/v1/pods`, GraphQL `myself { pods }`) work for an account of any size.
 */
export function listAllPods(queries: QueryBus, query: PodListFilter, actor: Actor): Promise<PodView[]> {
  return readAllPages(POD_PAGE, (limit, after) =>
    queries.query(Subjects.pod.list, { ...query, limit, ...(after ? { afterId: after.id } : {}) }, actor),
  );
}

const OPEN = Buffer.from('{"pods":[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']}');

/**
 * `GET /v2/pods`'s body, `{"pods":[…]}`, from the pages of `pod.qry.list-v2` as pod-lifecycle serialized them
 * (`toPodV2View`), joined without parsing them: each page's reply names the next page's cursor in a header.
 * The same bytes `JSON.stringify({ pods })` writes of the parsed pages; parsing a thousand views to write them
 * again was a third of the route's time (ADR 46). Pages of up to MAX_POD_PAGE pods: pod-lifecycle cuts them to
 * fit a message, and most accounts' lists are one request.
 */
export async function podsV2Body(
  queries: QueryBus,
  query: PodListFilter,
  actor: Actor,
): Promise<JsonBody<PodV2List>> {
  const parts: Uint8Array[] = [OPEN];
  for (let afterId: string | undefined; ;) {
    const page = await queries.queryJson(
      Subjects.pod.listV2,
      { ...query, limit: MAX_POD_PAGE, ...(afterId ? { afterId } : {}) },
      actor,
    );
    // `[a,b]` without its brackets, after a comma once a page held a pod.
    if (page.json.length > 2) {
      if (parts.length > 1) parts.push(COMMA);
      parts.push(page.json.subarray(1, -1));
    }
    afterId = page.header(Headers.PageNext);
    if (!afterId) break;
  }
  parts.push(CLOSE);
  return jsonBody(Buffer.concat(parts));
}
