import { Injectable } from '@nestjs/common';
import { Subjects, type ReleasePodCommand } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { PlacementRepository } from '../placement.repository.js';

/** `placement.cmd.release`: gives back a pod's GPUs, CPU slot and ports; releasing twice is harmless. */
@Injectable()
export class ReleasePodHandler {
  constructor(private readonly repository: PlacementRepository) {}

  @CommandHandler(Subjects.placement.release)
  async handle(ctx: CommandContext<ReleasePodCommand>): Promise<null> {
    await this.repository.release(ctx.manager, ctx.payload.podId);
    return null;
  }
}
