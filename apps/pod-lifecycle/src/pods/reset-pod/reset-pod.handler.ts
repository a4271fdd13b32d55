import { Injectable } from '@nestjs/common';
import { Subjects, type PodActionCommand, type PodView } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { PodTransitions } from '../pod-transitions.js';

/**
 * Reset: RUNNING, EXITED or ERROR → STARTING with a new container from the pod's configuration and a
 * wiped container disk (a new disk epoch); a stopped pod's GPUs are reserved again on its host first.
 */
@Injectable()
export class ResetPodHandler {
  constructor(private readonly transitions: PodTransitions) {}

  @CommandHandler(Subjects.pod.reset)
  handle(ctx: CommandContext<PodActionCommand>): Promise<PodView> {
    return this.transitions.act(ctx, 'reset', (pod, to) =>
      this.transitions.restart(pod, to, ctx, 'reset by the user'),
    );
  }
}
