import { Injectable } from '@nestjs/common';
import { Subjects, type HostChangeResult, type RemoveHostCommand } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { HostChanges } from '../host-changes.js';
import { remove } from '../host-rules.js';
import { HostsRepository } from '../hosts.repository.js';

/**
 * `fleet.cmd.remove`: the host goes GONE (its row stays: a rebuild, the pods' history and a registration again
 * refer to it). An operator removes only a host no pod holds; the node watch removes a deleted node whatever it
 * held, and the host-changed event (GONE, with its pods) makes pod-lifecycle stop them.
 */
@Injectable()
export class RemoveHostHandler {
  constructor(
    private readonly changes: HostChanges,
    private readonly hosts: HostsRepository,
  ) {}

  @CommandHandler(Subjects.fleet.remove)
  async handle(ctx: CommandContext<RemoveHostCommand>): Promise<HostChangeResult> {
    const { hostId, by = 'operator' } = ctx.payload;
    const host = await this.changes.lock(ctx, hostId);
    const { pods } = await this.hosts.holdings(hostId, ctx.manager);
    return this.changes.scheduling(ctx, host, remove(host, by, pods));
  }
}
