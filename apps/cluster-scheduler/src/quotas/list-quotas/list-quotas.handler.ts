import { Injectable } from '@nestjs/common';
import { DEFAULT_QUOTA_ACCOUNT, Subjects, type ListQuotasQuery, type QuotaListView } from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import { QuotaViews } from '../quota-views.js';
import { QuotasRepository } from '../quotas.repository.js';

/** Operators: the default and every account's own quota, with their use now, by account id. */
@Injectable()
export class ListQuotasHandler {
  constructor(
    private readonly quotas: QuotasRepository,
    private readonly views: QuotaViews,
  ) {}

  @QueryHandler(Subjects.quota.list)
  async handle(_ctx: QueryContext<ListQuotasQuery>): Promise<QuotaListView> {
    const now = new Date();
    const rows = await this.quotas.all();
    const fallback = rows.find((r) => r.accountId === DEFAULT_QUOTA_ACCOUNT);
    const quotas = [];
    for (const row of rows) {
      if (row.accountId !== DEFAULT_QUOTA_ACCOUNT) quotas.push(await this.views.of(row.accountId, now));
    }
    return { default: fallback ? this.views.defaultView(fallback) : null, quotas };
  }
}
