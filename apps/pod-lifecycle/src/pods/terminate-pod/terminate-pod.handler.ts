import { Injectable } from '@nestjs/common';
import { PodStatus, Subjects, type PodActionCommand, type PodView } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { PodTransitions } from '../pod-transitions.js';

/**
 * Terminate: any status → TERMINATED, final; the driver removes the container and its disk, the scheduler frees
 * the GPUs on the TERMINATED event. A terminated pod: no-op (DELETE stays 204).
 */
@Injectable()
export class TerminatePodHandler {
  constructor(private readonly transitions: PodTransitions) {}

  @CommandHandler(Subjects.pod.terminate)
  handle(ctx: CommandContext<PodActionCommand>): Promise<PodView> {
    return this.transitions.act(ctx, 'terminate', async (pod, to) => {
      pod.desiredStatus = PodStatus.Terminated;
      await this.transitions.changeStatus(pod, to, ctx, 'terminated by the user');
    });
  }
}
