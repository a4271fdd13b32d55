import { Injectable } from '@nestjs/common';
import { Subjects, type ClusterView, type ListClustersQuery } from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import { toClusterView } from '../cluster.mapper.js';
import { ClustersRepository } from '../clusters.repository.js';

@Injectable()
export class ListClustersHandler {
  constructor(private readonly clusters: ClustersRepository) {}

  @QueryHandler(Subjects.cluster.list)
  async handle(ctx: QueryContext<ListClustersQuery>): Promise<ClusterView[]> {
    const clusters = await this.clusters.listLiveByOwner(ctx.actor.userId);
    const ids = clusters.map((c) => c.id);
    const { counts, primaries } = await this.clusters.summaries(ids);
    return clusters.map((c) => toClusterView(c, counts.get(c.id) ?? {}, primaries.get(c.id)));
  }
}
