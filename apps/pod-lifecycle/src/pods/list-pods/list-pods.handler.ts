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
   * The same page as the management API v2 shows it, its JSON in UTF-8, with its size and last pod (the next page's
   * cursor) in the reply's headers: the gateway passes it through to `GET /v2/pods` without parsing it. The page
   * is its keyset read (ids and row versions); a view is made, and kept, only for a pod whose row changed since
   * its view was made (PodV2ViewCache). A pod whose row changed between the two reads shows as it is now, as it
   * would in a list read a moment later (ADR 46).
   */
  @QueryHandler(Subjects.pod.listV2)
  async handleV2(ctx: QueryContext<ListPodsQuery>): Promise<QueryAnswer<PodV2View[]>> {
    const secrets = ctx.payload.withSecrets ?? false;
    const page = await this.pods.listVersionsByOwner(ctx.actor.userId, listOptions(ctx.payload));
    const kept = page.map((pod) => this.v2Views.get(pod.id, pod.version, secrets));
    const made = new Map<string, Buffer>();
    const missing = page.filter((_pod, i) => kept[i] === undefined).map((pod) => pod.id);
    for (const row of await this.pods.listRowsByIds(missing)) {
      const json = Buffer.from(JSON.stringify(toPodV2View(listedPodView(row, { secrets }))));
      this.v2Views.set(row.id, row.version, secrets, json);
      made.set(row.id, json);
    }
    // `[a,b,…]`; a pod gone between the two reads (none is deleted today) is left out, the page's size is its
    // keyset's.
    const parts: Buffer[] = [OPEN];
    for (const [i, pod] of page.entries()) {
      const json = kept[i] ?? made.get(pod.id);
      if (!json) continue;
      if (parts.length > 1) parts.push(COMMA);
      parts.push(json);
    }
    parts.push(CLOSE);
    return QueryAnswer.serialized(Buffer.concat(parts), {
      [Headers.PageItems]: String(page.length),
      ...(page.length ? { [Headers.PageLast]: page[page.length - 1].id } : {}),
    });
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
