import { Injectable } from '@nestjs/common';
import { PodStatus, Subjects, type PodActionCommand, type PodView } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { PodTransitions } from '../pod-transitions.js';

/**
 * Stop: PROVISIONING, STARTING or RUNNING → EXITED, container disk kept; the scheduler frees the GPUs when it
 * sees the EXITED event. An EXITED pod: no-op.
 */
@Injectable()
export class StopPodHandler {
  constructor(private readonly transitions: PodTransitions) {}

  @CommandHandler(Subjects.pod.stop)
  handle(ctx: CommandContext<PodActionCommand>): Promise<PodView> {
    return this.transitions.act(ctx, 'stop', async (pod, to) => {
      pod.desiredStatus = PodStatus.Exited;
      await this.transitions.changeStatus(pod, to, ctx, 'stopped by the user');
    });
  }
}
