import { Injectable } from '@nestjs/common';
import { HOST_REASONS, PodStatus, Subjects, type HostLostCommand, type HostPodsResult } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { PodRepository } from '../pod.repository.js';
import { PodTransitions } from '../pod-transitions.js';

/** `HOST_UNHEALTHY: host h is unhealthy (XID): …` or `HOST_GONE: host h left the fleet: …`. */
export function hostLostReason(command: Omit<HostLostCommand, 'pods'>): string {
  const { hostId, state, reason, healthCode } = command;
  const why = reason ? `: ${reason}` : '';
  if (state === 'GONE') return `${HOST_REASONS.gone}: host ${hostId} left the fleet${why}`;
  return `${HOST_REASONS.unhealthy}: host ${hostId} is unhealthy${healthCode ? ` (${healthCode})` : ''}${why}`;
}

/**
 * A host became UNHEALTHY or GONE (`pod.cmd.host-lost`, recorded on `fleet.evt.host-changed`): every live pod on it
 * goes to ERROR, wanted EXITED, with a reason that starts with HOST_UNHEALTHY or HOST_GONE (what clients, the wait
 * reasons and the autoscaler's failed-worker path read). Its disk and data stay: a later start is a resume on the
 * same host, which the scheduler refuses while the host cannot take it. A drain notice the pod carried goes (the
 * status reason now says more). Its status event follows, so the runtime stops the container and the scheduler
 * frees its GPUs. Pods no longer live are left alone: the command applies once however often it comes.
 */
@Injectable()
export class HostLostHandler {
  constructor(
    private readonly pods: PodRepository,
    private readonly transitions: PodTransitions,
  ) {}

  @CommandHandler(Subjects.pod.hostLost)
  async handle(ctx: CommandContext<HostLostCommand>): Promise<HostPodsResult> {
    const reason = hostLostReason(ctx.payload);
    const live = await this.pods.lockLiveOnHostAmong(
      ctx.payload.hostId,
      ctx.payload.pods.map((pod) => pod.podId),
      ctx.manager,
    );
    for (const pod of live) {
      pod.desiredStatus = PodStatus.Exited;
      pod.hostNotice = null;
      pod.hostNoticeAt = null;
      pod.stopDeadline = null;
      await this.transitions.changeStatus(pod, PodStatus.Error, ctx, reason);
    }
    return { podIds: live.map((pod) => pod.id) };
  }
}
