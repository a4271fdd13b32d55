import { Injectable } from '@nestjs/common';
import { DomainError, ErrorCode, Subjects, type ListPodsByClusterQuery, type PodView } from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import { toPodView } from '../pod.mapper.js';
import { PodRepository } from '../pod.repository.js';

/**
 * The member pods of a cluster in rank order (terminated ones included: the scheduler decides what to show).
 * A user sees only their own cluster's pods (403 otherwise); a system actor sees any. No pods: an empty list
 * (the scheduler answers 404 for an unknown cluster).
 */
@Injectable()
export class ListPodsByClusterHandler {
  constructor(private readonly pods: PodRepository) {}

  @QueryHandler(Subjects.pod.listByCluster)
  async handle(ctx: QueryContext<ListPodsByClusterQuery>): Promise<PodView[]> {
    const pods = await this.pods.listByCluster(ctx.payload.clusterId);
    if (ctx.actor.kind !== 'system' && pods.some((p) => p.ownerId !== ctx.actor.userId)) {
      throw new DomainError(ErrorCode.Forbidden, `cluster ${ctx.payload.clusterId} belongs to another user`);
    }
    return pods.map((pod) => toPodView(pod, { secrets: ctx.payload.withSecrets }));
  }
}
