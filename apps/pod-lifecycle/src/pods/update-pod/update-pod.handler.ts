import { Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCode,
  PodStatus,
  Subjects,
  type PodView,
  type UpdatePodCommand,
} from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { ownedPod } from '../pod.access.js';
import { toPodView } from '../pod.mapper.js';
import { PodRepository } from '../pod.repository.js';
import { updatedMounts } from './mount-update.js';

/**
 * `PATCH /v2/pods/{id}`: rename, and the interface's mount update rules (mount-update.ts). A cluster member is
 * configured by its cluster (409), a terminated pod no longer changes (409). The status does not change, so no
 * status event; a new mount path reaches the container at its next start.
 */
@Injectable()
export class UpdatePodHandler {
  constructor(private readonly pods: PodRepository) {}

  @CommandHandler(Subjects.pod.update)
  async handle(ctx: CommandContext<UpdatePodCommand>): Promise<PodView> {
    const { podId, name, mounts } = ctx.payload;
    const pod = ownedPod(await this.pods.lockById(podId, ctx.manager), podId, ctx.envelope.actor);
    if (pod.clusterId) {
      throw new DomainError(
        ErrorCode.InvalidState,
        `cannot update pod ${podId}: it is a member of cluster ${pod.clusterId}; its cluster configures it`,
      );
    }
    if (pod.status === PodStatus.Terminated) {
      throw new DomainError(ErrorCode.InvalidState, `cannot update pod ${podId}: it is TERMINATED`);
    }
    if (name !== undefined) pod.name = name;
    const next = updatedMounts(pod, mounts);
    if (next) {
      pod.mounts = next.mounts;
      pod.volumeMountPath = next.volumeMountPath;
    }
    await this.pods.save(pod, ctx.manager);
    return toPodView(pod);
  }
}
