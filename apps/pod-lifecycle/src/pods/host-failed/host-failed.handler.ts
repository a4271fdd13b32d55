import { Injectable } from '@nestjs/common';
import { PodStatus, Subjects, type HostFailedCommand, type HostFailedResult } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { PodRepository } from '../pod.repository.js';
import { PodTransitions } from '../pod-transitions.js';

/** A host died: every live pod on it goes to ERROR (users may start them again once the host is back). */
@Injectable()
export class HostFailedHandler {
  constructor(
    private readonly pods: PodRepository,
    private readonly transitions: PodTransitions,
  ) {}

  @CommandHandler(Subjects.pod.hostFailed)
  async handle(ctx: CommandContext<HostFailedCommand>): Promise<HostFailedResult> {
    const { hostId, reason } = ctx.payload;
    const pods = await this.pods.lockLiveOnHost(hostId, ctx.manager);
    const why = `host ${hostId} failed${reason ? `: ${reason}` : ''}`;
    for (const pod of pods) {
      pod.desiredStatus = PodStatus.Exited;
      await this.transitions.changeStatus(pod, PodStatus.Error, ctx, why);
    }
    return { podIds: pods.map((p) => p.id) };
  }
}
