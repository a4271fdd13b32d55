import { Injectable } from '@nestjs/common';
import {
  Subjects,
  type DrainExpiredEvent,
  type ExpireDrainsCommand,
  type ExpireDrainsResult,
} from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { LedgerLock } from '../../quotas/ledger-lock.js';
import { HostsRepository } from '../hosts.repository.js';

/**
 * `fleet.cmd.expire-drains` (the scheduler's leader, DrainDeadlines): every DRAINING host whose deadline is the
 * command's time or before, not reported yet, gets `fleet.evt.drain-expired` with the pods still on it
 * (pod-lifecycle stops them: HOST_DRAINED). The host stays DRAINING; it is only marked reported, once.
 */
@Injectable()
export class ExpireDrainsHandler {
  constructor(
    private readonly hosts: HostsRepository,
    private readonly ledger: LedgerLock,
  ) {}

  @CommandHandler(Subjects.fleet.expireDrains)
  async handle(ctx: CommandContext<ExpireDrainsCommand>): Promise<ExpireDrainsResult> {
    await this.ledger.lock(ctx.manager);
    const due = await this.hosts.dueDrains(ctx.now, ctx.manager);
    for (const host of due) {
      const event: DrainExpiredEvent = {
        hostId: host.id,
        pods: await this.hosts.podsOn(host.id, ctx.manager),
      };
      await ctx.emit(Subjects.fleet.drainExpired, event);
      host.drainExpiredAt = ctx.now;
      await this.hosts.save(host, ctx.manager);
    }
    return { hostIds: due.map((h) => h.id) };
  }
}
