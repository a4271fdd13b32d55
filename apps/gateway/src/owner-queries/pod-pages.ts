import {
  DomainError,
  ErrorCode,
  Headers,
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
 * (`toPodV2View`), joined without parsing them: each page's size and last pod come in its reply's headers. The
 * same bytes `JSON.stringify({ pods })` writes of the parsed pages; parsing a thousand views to write them again
 * was a third of the route's time (ADR 46).
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
      { ...query, limit: POD_PAGE, ...(afterId ? { afterId } : {}) },
      actor,
    );
    const items = Number(page.header(Headers.PageItems));
    if (!Number.isInteger(items)) {
      throw new DomainError(ErrorCode.Internal, `${Subjects.pod.listV2} answered a page without its size`);
    }
    // `[a,b]` without its brackets, after a comma from the second page on.
    if (items > 0) parts.push(...(parts.length > 1 ? [COMMA] : []), page.json.subarray(1, -1));
    afterId = page.header(Headers.PageLast);
    if (items < POD_PAGE || !afterId) break;
  }
  parts.push(CLOSE);
  return jsonBody(Buffer.concat(parts));
}
