import { Injectable } from '@nestjs/common';
import { Subjects, type ListPodsQuery, type PodView } from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import { toPodView } from '../pod.mapper.js';
import { PodRepository } from '../pod.repository.js';

/** The caller's pods, oldest first; terminated ones only on request, cluster members unless left out; a page. */
@Injectable()
export class ListPodsHandler {
  constructor(private readonly pods: PodRepository) {}

  @QueryHandler(Subjects.pod.list)
  async handle(ctx: QueryContext<ListPodsQuery>): Promise<PodView[]> {
    const { includeTerminated, standaloneOnly, limit, afterId, withSecrets } = ctx.payload;
    const pods = await this.pods.listByOwner(ctx.actor.userId, {
      includeTerminated,
      standaloneOnly,
      limit,
      afterId,
    });
    return pods.map((pod) => toPodView(pod, { secrets: withSecrets }));
  }
}
