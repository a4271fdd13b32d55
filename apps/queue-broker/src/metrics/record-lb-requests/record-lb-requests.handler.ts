import { Injectable } from '@nestjs/common';
import { Subjects, type RecordLbRequestsCommand } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { lbRollupDeltas } from './lb-rollups.js';
import { LbRollupsRepository } from './lb-rollups.repository.js';

/**
 * `job.cmd.record-lb-requests`: a gateway replica's load-balancing request counts of its last few seconds and the
 * workers it sees, added to the endpoint metrics rollups (docs/adr/0026, "Request metrics"). A recorded command
 * rather than a message the leader folds: the counts exist nowhere else, so the command log is what keeps them
 * (applied once per command id, and a replay writes the same rows). Counters add up over the replicas; the worker
 * gauges keep the peak, as the leader's samples of queue workers do.
 */
@Injectable()
export class RecordLbRequestsHandler {
  constructor(private readonly rollups: LbRollupsRepository) {}

  @CommandHandler(Subjects.job.recordLbRequests)
  async handle(ctx: CommandContext<RecordLbRequestsCommand>): Promise<{ rows: number }> {
    const rows = lbRollupDeltas(ctx.payload, ctx.now);
    await this.rollups.add(rows, ctx.manager);
    return { rows: rows.length };
  }
}
