import { Injectable } from '@nestjs/common';
import {
  Headers,
  Subjects,
  toPodV2View,
  type ListPodsQuery,
  type PodV2View,
  type PodView,
} from '@app/contracts';
import { QueryAnswer, QueryHandler, type QueryContext } from '@app/messaging';
import { listedPodView } from '../pod.mapper.js';
import { PodRepository, type ListByOwnerOptions } from '../pod.repository.js';
import { PodV2ViewCache } from './pod-v2-view.cache.js';

/**
 * The JSON a v2 page holds past its first view: half a NATS message (max_payload: 1 MB by default), a margin for
 * the envelope, the headers and the view that would cross it.
 */
const PAGE_BYTES = 512 * 1024;
const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');

/** The caller's pods, oldest first; terminated ones only on request, cluster members unless left out; a page. */
@Injectable()
export class ListPodsHandler {
  constructor(
    private readonly pods: PodRepository,
    private readonly v2Views: PodV2ViewCache,
  ) {}

  @QueryHandler(Subjects.pod.list)
  async handle(ctx: QueryContext<ListPodsQuery>): Promise<PodView[]> {
    const pods = await this.pods.listByOwner(ctx.actor.userId, listOptions(ctx.payload));
    return pods.map((pod) => listedPodView(pod, { secrets: ctx.payload.withSecrets }));
  }

  /**
   * The same list as the management API v2 shows it, a page of it as UTF-8 JSON with the next page's cursor in the
   * reply's header (none on the last page): the gateway passes the pages through to `GET /v2/pods` without parsing
   * them. A page holds at most `limit` pods and, past its first, PAGE_BYTES of JSON (a reply is one NATS message).
   * It is read as its keyset (ids and row versions); a view is made, and kept, only for a pod whose row changed
   * since its view was made (PodV2ViewCache). A pod changed between the two reads shows as it is now, as in a list
   * read a moment later (ADR 46).
   */
  @QueryHandler(Subjects.pod.listV2)
  async handleV2(ctx: QueryContext<ListPodsQuery>): Promise<QueryAnswer<PodV2View[]>> {
    const secrets = ctx.payload.withSecrets ?? false;
    const { limit } = ctx.payload;
    // One more than the page: whether another page follows.
    const options = { ...listOptions(ctx.payload), ...(limit ? { limit: limit + 1 } : {}) };
    const keys = await this.pods.listVersionsByOwner(ctx.actor.userId, options);
    const page = limit ? keys.slice(0, limit) : keys;
    const kept = page.map((pod) => this.v2Views.get(pod.id, pod.version, secrets));
    const made = new Map<string, Buffer>();
    const missing = page.filter((_pod, i) => kept[i] === undefined).map((pod) => pod.id);
    for (const row of await this.pods.listRowsByIds(missing)) {
      const json = Buffer.from(JSON.stringify(toPodV2View(listedPodView(row, { secrets }))));
      this.v2Views.set(row.id, row.version, secrets, json);
      made.set(row.id, json);
    }
    // `[a,b,…]`; a pod gone between the two reads (none is deleted today) is left out.
    const parts: Buffer[] = [OPEN];
    let bytes = 0;
    let taken = 0;
    for (const [i, pod] of page.entries()) {
      const json = kept[i] ?? made.get(pod.id);
      if (json && bytes && limit && bytes + json.length > PAGE_BYTES) break;
      taken = i + 1;
      if (!json) continue;
      if (bytes) parts.push(COMMA);
      parts.push(json);
      bytes += json.length + 1;
    }
    parts.push(CLOSE);
    const more = taken < keys.length;
    return QueryAnswer.serialized(parts, more ? { [Headers.PageNext]: page[taken - 1].id } : {});
  }
}

function listOptions({
  includeTerminated,
  standaloneOnly,
  limit,
  afterId,
}: ListPodsQuery): ListByOwnerOptions {
  return { includeTerminated, standaloneOnly, limit, afterId };
}
