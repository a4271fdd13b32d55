import { Injectable } from '@nestjs/common';
import { Subjects, type ClusterDeletedEvent, type DeleteClusterCommand } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { ownedCluster } from '../cluster.access.js';
import { ClustersRepository } from '../clusters.repository.js';

/**
 * `cluster.cmd.delete`: the cluster leaves the live set at once (its VXLAN id and CIDR are free for the next
 * cluster); pod-lifecycle terminates the members on `cluster.evt.deleted`, and each member's GPUs and ports come
 * back when its TERMINATED status arrives.
 */
@Injectable()
export class DeleteClusterHandler {
  constructor(private readonly clusters: ClustersRepository) {}

  @CommandHandler(Subjects.cluster.delete)
  async handle(ctx: CommandContext<DeleteClusterCommand>): Promise<null> {
    const { envelope, payload, manager } = ctx;
    const cluster = ownedCluster(
      await this.clusters.findLive(payload.id, manager),
      payload.id,
      envelope.actor,
    );
    await this.clusters.markDeleted(cluster.id, ctx.now, manager);
    const members = await this.clusters.members(cluster.id, manager);
    const event: ClusterDeletedEvent = {
      clusterId: cluster.id,
      ownerId: cluster.ownerId,
      podIds: members.map((m) => m.podId),
    };
    await ctx.emit(Subjects.cluster.deleted, event);
    return null;
  }
}
