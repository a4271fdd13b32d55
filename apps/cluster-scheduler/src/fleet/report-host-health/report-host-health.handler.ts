import { Injectable } from '@nestjs/common';
import { Subjects, type HostChangeResult, type ReportHostHealthCommand } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { HostChanges } from '../host-changes.js';
import { reportHealth } from '../host-rules.js';

/**
 * `fleet.cmd.report-health` (the runtime driver, an operator, pod-lifecycle after repeated start failures): an
 * unhealthy host takes no placements, and the host-changed event (UNHEALTHY, with its pods) makes pod-lifecycle
 * stop them and the broker hand their workers' leases back. Healthy again lifts it (host-rules.ts: reportHealth).
 */
@Injectable()
export class ReportHostHealthHandler {
  constructor(private readonly changes: HostChanges) {}

  @CommandHandler(Subjects.fleet.reportHealth)
  async handle(ctx: CommandContext<ReportHostHealthCommand>): Promise<HostChangeResult> {
    const host = await this.changes.lock(ctx, ctx.payload.hostId);
    return this.changes.health(ctx, host, reportHealth(host, ctx.payload));
  }
}
