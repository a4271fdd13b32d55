import { Injectable } from '@nestjs/common';
import { Subjects, type HostChangeResult, type UncordonHostCommand } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { HostChanges } from '../host-changes.js';
import { uncordon } from '../host-rules.js';

/**
 * `fleet.cmd.uncordon`: back to READY from CORDONED or DRAINING; the node watch never lifts an operator's hold
 * (host-rules.ts: uncordon).
 */
@Injectable()
export class UncordonHostHandler {
  constructor(private readonly changes: HostChanges) {}

  @CommandHandler(Subjects.fleet.uncordon)
  async handle(ctx: CommandContext<UncordonHostCommand>): Promise<HostChangeResult> {
    const { hostId, by = 'operator' } = ctx.payload;
    const host = await this.changes.lock(ctx, hostId);
    return this.changes.scheduling(ctx, host, uncordon(host, by));
  }
}
