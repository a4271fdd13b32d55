import { Injectable } from '@nestjs/common';
import { Subjects, type ClusterMemberView, type ListClusterMembersQuery } from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import { ownedCluster } from '../cluster.access.js';
import { toClusterMemberView } from '../cluster.mapper.js';
import { ClustersRepository } from '../clusters.repository.js';

/** The members of one of the caller's live clusters, in rank order, as the scheduler placed them. */
@Injectable()
export class ListClusterMembersHandler {
  constructor(private readonly clusters: ClustersRepository) {}

  @QueryHandler(Subjects.cluster.listMembers)
  async handle(ctx: QueryContext<ListClusterMembersQuery>): Promise<ClusterMemberView[]> {
    const { id } = ctx.payload;
    const cluster = ownedCluster(await this.clusters.findLive(id), id, ctx.actor);
    return (await this.clusters.members(cluster.id)).map((m) => toClusterMemberView(cluster, m));
  }
}
