import { Injectable } from '@nestjs/common';
import { Subjects, type ClusterView, type GetClusterQuery } from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import { ownedCluster } from '../cluster.access.js';
import { toClusterView } from '../cluster.mapper.js';
import { ClustersRepository } from '../clusters.repository.js';

@Injectable()
export class GetClusterHandler {
  constructor(private readonly clusters: ClustersRepository) {}

  @QueryHandler(Subjects.cluster.get)
  async handle(ctx: QueryContext<GetClusterQuery>): Promise<ClusterView> {
    const { id } = ctx.payload;
    const cluster = ownedCluster(await this.clusters.findLive(id), id, ctx.actor);
    const { counts, primaries } = await this.clusters.summaries([cluster.id]);
    return toClusterView(cluster, counts.get(cluster.id) ?? {}, primaries.get(cluster.id));
  }
}
