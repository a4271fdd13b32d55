import { Injectable } from '@nestjs/common';
import { Subjects, type DrainHostCommand, type HostChangeResult } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { ClusterSchedulerConfig } from '../../cluster-scheduler.config.js';
import { HostChanges } from '../host-changes.js';
import { drain } from '../host-rules.js';

/**
 * `fleet.cmd.drain`: no new placements; the host-changed event (DRAINING, with its pods and the deadline) makes the
 * autoscaler replace its workers and pod-lifecycle tell its users' pods. The deadline is the command's time plus
 * `deadlineSeconds` (else FLEET_DRAIN_DEADLINE_S); at it the leader records fleet.cmd.expire-drains.
 */
@Injectable()
export class DrainHostHandler {
  constructor(
    private readonly changes: HostChanges,
    private readonly config: ClusterSchedulerConfig,
  ) {}

  @CommandHandler(Subjects.fleet.drain)
  async handle(ctx: CommandContext<DrainHostCommand>): Promise<HostChangeResult> {
    const { hostId, by = 'operator', reason, deadlineSeconds } = ctx.payload;
    const seconds = deadlineSeconds ?? this.config.FLEET_DRAIN_DEADLINE_S;
    const host = await this.changes.lock(ctx, hostId);
    const deadline = new Date(ctx.now.getTime() + seconds * 1000);
    return this.changes.scheduling(ctx, host, drain(host, by, reason ?? null, deadline));
  }
}
