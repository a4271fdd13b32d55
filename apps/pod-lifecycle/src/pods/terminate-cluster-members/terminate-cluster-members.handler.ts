import { Injectable } from '@nestjs/common';
import { PodStatus, Subjects, type ClusterDeletedEvent } from '@app/contracts';
import { EventHandler, type EventContext } from '@app/messaging';
import { DeletedClustersRepository } from '../deleted-clusters/deleted-clusters.repository.js';
import { PodRepository } from '../pod.repository.js';
import { PodTransitions, type StatusWriter } from '../pod-transitions.js';

/**
 * The scheduler deleted a cluster: every member pod not yet terminated is terminated (one event each), and the
 * delete is remembered, so members whose create arrives later (out of order) are terminated as they are created.
 */
@Injectable()
export class TerminateClusterMembersHandler {
  constructor(
    private readonly pods: PodRepository,
    private readonly transitions: PodTransitions,
    private readonly deletedClusters: DeletedClustersRepository,
  ) {}

  @EventHandler(Subjects.cluster.deleted)
  async handle(ctx: EventContext<ClusterDeletedEvent>): Promise<void> {
    const { payload } = ctx.event;
    const writer: StatusWriter = {
      manager: ctx.manager,
      now: new Date(ctx.event.occurredAt),
      emit: (subject, body, part) => ctx.emit(subject, body, part),
    };
    await this.deletedClusters.record(payload.clusterId, writer.now, ctx.manager);
    const ids = new Set(payload.podIds);
    for (const pod of await this.pods.listByCluster(payload.clusterId, ctx.manager)) ids.add(pod.id);
    for (const id of [...ids].sort()) {
      const pod = await this.pods.lockById(id, ctx.manager);
      if (!pod || pod.status === PodStatus.Terminated || pod.clusterId !== payload.clusterId) continue;
      await this.transitions.terminateClusterMember(pod, payload.clusterId, writer);
    }
  }
}
