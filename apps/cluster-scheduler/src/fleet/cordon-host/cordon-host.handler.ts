import { Injectable } from '@nestjs/common';
import { Subjects, type CordonHostCommand, type HostChangeResult } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { HostChanges } from '../host-changes.js';
import { cordon } from '../host-rules.js';

/** `fleet.cmd.cordon`: no new placements on the host; what runs there stays (host-rules.ts: cordon). */
@Injectable()
export class CordonHostHandler {
  constructor(private readonly changes: HostChanges) {}

  @CommandHandler(Subjects.fleet.cordon)
  async handle(ctx: CommandContext<CordonHostCommand>): Promise<HostChangeResult> {
    const { hostId, by = 'operator', reason } = ctx.payload;
    const host = await this.changes.lock(ctx, hostId);
    return this.changes.scheduling(ctx, host, cordon(host, by, reason ?? null));
  }
}
