import { Injectable } from '@nestjs/common';
import { Subjects, type ClusterDeletedEvent, type DeleteClusterCommand } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { ownedCluster } from '../cluster.access.js';
import { PlacementRepository } from '../../placement/placement.repository.js';
import { ClustersRepository } from '../clusters.repository.js';

/**
 * `cluster.cmd.delete`: the cluster leaves the live set at once (its VXLAN id and CIDR are free for the next
 * cluster); pod-lifecycle terminates the members on `cluster.evt.deleted`, and each member's GPUs and ports come
 * back when its TERMINATED status arrives.
 */
@Injectable()
export class DeleteClusterHandler {
  constructor(
    private readonly clusters: ClustersRepository,
    private readonly placement: PlacementRepository,
  ) {}

  @CommandHandler(Subjects.cluster.delete)
  async handle(ctx: CommandContext<DeleteClusterCommand>): Promise<null> {
    const { envelope, payload, manager } = ctx;
    const cluster = ownedCluster(
      await this.clusters.findLive(payload.id, manager),
      payload.id,
      envelope.actor,
    );
    // Under the placement ledger's lock, as every change to what mounts a network volume: a delete of the
    // cluster's volume running beside this one counts the cluster as deleted or not, as a rebuild will.
    await this.placement.lockLedger(manager);
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
