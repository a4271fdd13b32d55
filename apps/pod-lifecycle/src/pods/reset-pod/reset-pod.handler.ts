import { Injectable } from '@nestjs/common';
import { PodStatus, Subjects, type PodActionCommand, type PodView } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { PodTransitions } from '../pod-transitions.js';

/**
 * Reset: RUNNING, EXITED or ERROR → STARTING with a new container from the pod's initial configuration and a
 * wiped container disk (a new disk epoch); a stopped pod's GPUs are reserved again on its host first.
 */
@Injectable()
export class ResetPodHandler {
  constructor(private readonly transitions: PodTransitions) {}

  @CommandHandler(Subjects.pod.reset)
  handle(ctx: CommandContext<PodActionCommand>): Promise<PodView> {
    return this.transitions.act(ctx, 'reset', async (pod, to) => {
      if (pod.status !== PodStatus.Running) await this.transitions.reserveOnSameHost(ctx.envelope, pod);
      pod.generation += 1;
      pod.diskEpoch += 1;
      pod.desiredStatus = PodStatus.Running;
      pod.lastStartedAt = ctx.now;
      await this.transitions.changeStatus(pod, to, ctx, 'reset by the user');
    });
  }
}
