import { Injectable } from '@nestjs/common';
import { Subjects, type ReleasePodCommand } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { PlacementRepository } from '../placement.repository.js';

/**
 * `placement.cmd.release`: gives back a pod's GPUs, CPU slot and ports (with `notAfter`, only a reservation made by
 * then); releasing twice is harmless. Sent by pod-lifecycle for a create whose reserve it could not wait for, and
 * by the scheduler itself when a pod stops or terminates (FollowPodStatusHandler).
 */
@Injectable()
export class ReleasePodHandler {
  constructor(private readonly repository: PlacementRepository) {}

  @CommandHandler(Subjects.placement.release)
  async handle(ctx: CommandContext<ReleasePodCommand>): Promise<null> {
    const { podId, notAfter } = ctx.payload;
    await this.repository.release(ctx.manager, podId, notAfter ? new Date(notAfter) : undefined);
    return null;
  }
}
