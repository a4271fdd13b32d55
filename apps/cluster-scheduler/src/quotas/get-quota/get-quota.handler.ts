import { Injectable } from '@nestjs/common';
import { Subjects, type GetQuotaQuery, type QuotaView } from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import { QuotaViews } from '../quota-views.js';

/** One account's quota with its use now (the gateway has checked who may read it). */
@Injectable()
export class GetQuotaHandler {
  constructor(private readonly views: QuotaViews) {}

  @QueryHandler(Subjects.quota.get)
  handle(ctx: QueryContext<GetQuotaQuery>): Promise<QuotaView> {
    return this.views.of(ctx.payload.accountId, new Date());
  }
}
