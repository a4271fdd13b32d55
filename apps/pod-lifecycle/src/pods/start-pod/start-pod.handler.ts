import { Injectable } from '@nestjs/common';
import { PodStatus, Subjects, type PodActionCommand, type PodView } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { PodTransitions } from '../pod-transitions.js';

/**
 * Start (resume): EXITED or ERROR → STARTING on the same host (its GPUs reserved again; CAPACITY_UNAVAILABLE
 * when they are taken), container disk kept; the driver then reports RUNNING. A pod already live: no-op. Refused
 * with SPEND_LIMIT_REACHED (402) once the owner's monthly spend limit is reached.
 */
@Injectable()
export class StartPodHandler {
  constructor(private readonly transitions: PodTransitions) {}

  @CommandHandler(Subjects.pod.start)
  handle(ctx: CommandContext<PodActionCommand>): Promise<PodView> {
    return this.transitions.act(ctx, 'start', async (pod, to) => {
      await this.transitions.assertUnderSpendLimit(ctx, 'pod start');
      await this.transitions.reserveOnSameHost(ctx.envelope, pod);
      pod.generation += 1;
      pod.desiredStatus = PodStatus.Running;
      pod.lastStartedAt = ctx.now;
      await this.transitions.changeStatus(pod, to, ctx);
    });
  }
}
