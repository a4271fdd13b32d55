import { Injectable } from '@nestjs/common';
import { Subjects, type QuotaHistoryQuery, type QuotaHistoryView } from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import { QuotasRepository } from '../quotas.repository.js';

const DEFAULT_WINDOW_S = 24 * 3600;

/** An account's minute samples over a window (a day by default, a week at most): the console's chart. */
@Injectable()
export class QuotaHistoryHandler {
  constructor(private readonly quotas: QuotasRepository) {}

  @QueryHandler(Subjects.quota.history)
  async handle(ctx: QueryContext<QuotaHistoryQuery>): Promise<QuotaHistoryView> {
    const { accountId, windowSeconds } = ctx.payload;
    const since = new Date(Date.now() - (windowSeconds ?? DEFAULT_WINDOW_S) * 1000);
    const rows = await this.quotas.samples(accountId, since);
    return {
      accountId,
      samples: rows.map((r) => ({
        at: new Date(r.at).toISOString(),
        gpuTypeId: r.gpuTypeId,
        dataCenterId: r.dataCenterId || null,
        gpus: r.gpus,
        inUse: r.inUse,
        borrowed: r.borrowed,
        lent: r.lent,
      })),
    };
  }
}
