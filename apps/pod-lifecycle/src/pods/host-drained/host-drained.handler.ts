import { Injectable } from '@nestjs/common';
import {
  HOST_REASONS,
  PodStatus,
  Subjects,
  type HostDrainedCommand,
  type HostPodsResult,
} from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { PodRepository } from '../pod.repository.js';
import { PodTransitions } from '../pod-transitions.js';

/**
 * A drain's deadline passed (`pod.cmd.host-drained`, recorded on `fleet.evt.drain-expired`): every live pod left on
 * the host, a worker the autoscaler has not replaced yet included, is stopped as a stop leaves it (EXITED, wanted
 * EXITED, container disk kept) with a reason that starts with HOST_DRAINED; its notice goes, the reason says it
 * now. Its status event follows as for a stop. Pods no longer live are left alone.
 */
@Injectable()
export class HostDrainedHandler {
  constructor(
    private readonly pods: PodRepository,
    private readonly transitions: PodTransitions,
  ) {}

  @CommandHandler(Subjects.pod.hostDrained)
  async handle(ctx: CommandContext<HostDrainedCommand>): Promise<HostPodsResult> {
    const { hostId } = ctx.payload;
    const reason = `${HOST_REASONS.drained}: host ${hostId} was drained: stopped at the drain's deadline`;
    const live = await this.pods.lockLiveOnHostAmong(
      hostId,
      ctx.payload.pods.map((pod) => pod.podId),
      ctx.manager,
    );
    for (const pod of live) {
      pod.desiredStatus = PodStatus.Exited;
      pod.hostNotice = null;
      pod.hostNoticeAt = null;
      pod.stopDeadline = null;
      await this.transitions.changeStatus(pod, PodStatus.Exited, ctx, reason);
    }
    return { podIds: live.map((pod) => pod.id) };
  }
}
