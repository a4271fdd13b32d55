import { Injectable } from '@nestjs/common';
import { Subjects, type ListPodsQuery, type PodView } from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import { toPodView } from '../pod.mapper.js';
import { PodRepository } from '../pod.repository.js';

/** The caller's pods, oldest first; terminated ones only on request, cluster members unless left out. */
@Injectable()
export class ListPodsHandler {
  constructor(private readonly pods: PodRepository) {}

  @QueryHandler(Subjects.pod.list)
  async handle(ctx: QueryContext<ListPodsQuery>): Promise<PodView[]> {
    const pods = await this.pods.listByOwner(ctx.actor.userId, ctx.payload.includeTerminated ?? false);
    const secrets = ctx.payload.withSecrets;
    return pods
      .filter((pod) => !ctx.payload.standaloneOnly || pod.clusterId === null)
      .map((pod) => toPodView(pod, { secrets }));
  }
}
