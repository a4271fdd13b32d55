import { Injectable } from '@nestjs/common';
import { Subjects, type QuotaSampleResult, type SampleQuotasCommand } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { QuotaSampleEntity } from '../quota-sample.entity.js';
import { limitViews } from '../quota-views.js';
import { QuotasRepository } from '../quotas.repository.js';

const KEPT_MS = 7 * 24 * 3600 * 1000;

/**
 * `quota.cmd.sample` (the leader's minute tick): every limit's use, of every account with a quota and of every
 * account under the default that holds GPUs, dated by the command, so a rebuild samples the same numbers at the
 * same point of the history. Samples older than a week go.
 */
@Injectable()
export class SampleQuotasHandler {
  constructor(private readonly quotas: QuotasRepository) {}

  @CommandHandler(Subjects.quota.sample)
  async handle(ctx: CommandContext<SampleQuotasCommand>): Promise<QuotaSampleResult> {
    const { manager, now } = ctx;
    const rows = await this.quotas.all(manager);
    const own = new Set(rows.map((r) => r.accountId));
    const accounts = [...own].filter((id) => id !== '*');
    if (own.has('*')) accounts.push(...(await this.quotas.holders(manager)).filter((id) => !own.has(id)));
    const samples: QuotaSampleEntity[] = [];
    for (const accountId of accounts) {
      const { own: quota, peers } = await this.quotas.around(accountId, manager);
      if (!quota) continue;
      const usage = await this.quotas.usageByType([accountId, ...peers.map((p) => p.accountId)], manager);
      for (const view of limitViews(quota, peers, usage)) {
        samples.push(
          Object.assign(new QuotaSampleEntity(), {
            accountId,
            at: now,
            gpuTypeId: view.gpuTypeId,
            dataCenterId: view.dataCenterId ?? '',
            gpus: view.gpus,
            inUse: view.inUse,
            borrowed: view.borrowed,
            lent: view.lent,
          }),
        );
      }
    }
    await this.quotas.insertSamples(samples, manager);
    await this.quotas.pruneSamples(new Date(now.getTime() - KEPT_MS), manager);
    return { samples: samples.length };
  }
}
