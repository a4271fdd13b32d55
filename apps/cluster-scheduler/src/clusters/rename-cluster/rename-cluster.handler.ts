import { Injectable } from '@nestjs/common';
import { Subjects, type ClusterView, type RenameClusterCommand } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { ownedCluster } from '../cluster.access.js';
import { toClusterView } from '../cluster.mapper.js';
import { ClustersRepository } from '../clusters.repository.js';

/**
 * `cluster.cmd.rename` (`PATCH /v2/clusters/{id}`): RunPod's update of a cluster is a rename; its compute shape,
 * type and container configuration stay as created (the gateway refuses them by name). 404 for an unknown or
 * deleted cluster, 403 for another user's. Only the cluster's name changes: its members keep theirs, as on RunPod.
 */
@Injectable()
export class RenameClusterHandler {
  constructor(private readonly clusters: ClustersRepository) {}

  @CommandHandler(Subjects.cluster.rename)
  async handle(ctx: CommandContext<RenameClusterCommand>): Promise<ClusterView> {
    const { envelope, payload, manager } = ctx;
    const cluster = ownedCluster(
      await this.clusters.lockLive(payload.id, manager),
      payload.id,
      envelope.actor,
    );
    cluster.name = payload.name;
    await this.clusters.rename(cluster.id, cluster.name, manager);
    const { counts, primaries } = await this.clusters.summariesIn([cluster.id], manager);
    return toClusterView(cluster, counts.get(cluster.id) ?? {}, primaries.get(cluster.id));
  }
}
