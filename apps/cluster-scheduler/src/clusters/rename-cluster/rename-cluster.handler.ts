import { Injectable } from '@nestjs/common';
import { Subjects, type ClusterRenamed, type RenameClusterCommand } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { ownedCluster } from '../cluster.access.js';
import { ClustersRepository } from '../clusters.repository.js';

/**
 * `cluster.cmd.rename` (`PATCH /v2/clusters/{id}`): RunPod's update of a cluster is a rename; its compute shape,
 * type and container configuration stay as created (the gateway refuses them by name). 404 for an unknown or
 * deleted cluster, 403 for another user's. Only the cluster's name changes: its members keep theirs, as on RunPod.
 * It answers the id and the name only (ClusterRenamed: what a rebuild reproduces), not the member counts.
 */
@Injectable()
export class RenameClusterHandler {
  constructor(private readonly clusters: ClustersRepository) {}

  @CommandHandler(Subjects.cluster.rename)
  async handle(ctx: CommandContext<RenameClusterCommand>): Promise<ClusterRenamed> {
    const { envelope, payload, manager } = ctx;
    const cluster = ownedCluster(
      await this.clusters.lockLive(payload.id, manager),
      payload.id,
      envelope.actor,
    );
    await this.clusters.rename(cluster.id, payload.name, manager);
    return { id: cluster.id, name: payload.name };
  }
}
