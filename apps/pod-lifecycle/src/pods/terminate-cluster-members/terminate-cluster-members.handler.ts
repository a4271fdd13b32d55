import { Injectable } from '@nestjs/common';
import {
  PodStatus,
  Subjects,
  type ClusterDeletedEvent,
  type ClusterMembersResult,
  type TerminateClusterMembersCommand,
} from '@app/contracts';
import {
  CommandBus,
  CommandHandler,
  EventHandler,
  type CommandContext,
  type EventContext,
} from '@app/messaging';
import { recordMembersCommand } from '../cluster-members.reaction.js';
import { DeletedClustersRepository } from '../deleted-clusters/deleted-clusters.repository.js';
import { PodRepository } from '../pod.repository.js';
import { PodTransitions, type StatusWriter } from '../pod-transitions.js';

/**
 * The scheduler deleted a cluster: every member pod not yet terminated is terminated (one event each), and the
 * delete is remembered, so members whose create arrives later (out of order) are terminated as they are created.
 * The event is answered by a recorded command (`pod.cmd.terminate-cluster-members`, an id derived from the event),
 * which does the work: a rebuild applies it where the live side did, rather than whenever it handles the event.
 */
@Injectable()
export class TerminateClusterMembersHandler {
  constructor(
    private readonly pods: PodRepository,
    private readonly transitions: PodTransitions,
    private readonly deletedClusters: DeletedClustersRepository,
    private readonly commands: CommandBus,
  ) {}

  @EventHandler(Subjects.cluster.deleted)
  heard(ctx: EventContext<ClusterDeletedEvent>): Promise<void> {
    return recordMembersCommand(this.commands, ctx.event, Subjects.pod.terminateClusterMembers);
  }

  @CommandHandler(Subjects.pod.terminateClusterMembers)
  async handle(ctx: CommandContext<TerminateClusterMembersCommand>): Promise<ClusterMembersResult> {
    const payload = ctx.payload.cluster;
    const writer: StatusWriter = { manager: ctx.manager, now: ctx.now, emit: ctx.emit };
    let terminated = 0;
    await this.deletedClusters.lockMembers(payload.clusterId, ctx.manager);
    await this.deletedClusters.record(payload.clusterId, writer.now, ctx.manager);
    const ids = new Set(payload.podIds);
    for (const pod of await this.pods.listByCluster(payload.clusterId, ctx.manager)) ids.add(pod.id);
    for (const id of [...ids].sort()) {
      const pod = await this.pods.lockById(id, ctx.manager);
      if (!pod || pod.status === PodStatus.Terminated || pod.clusterId !== payload.clusterId) continue;
      await this.transitions.terminateClusterMember(pod, payload.clusterId, writer);
      terminated += 1;
    }
    return { pods: terminated };
  }
}
