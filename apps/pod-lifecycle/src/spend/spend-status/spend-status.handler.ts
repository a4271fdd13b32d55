import { Injectable } from '@nestjs/common';
import { Subjects, type GetSpendStatusQuery, type SpendStatus } from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import { SpendLedger } from '../spend-ledger.service.js';

/**
 * `spend.qry.status`: the actor's limits and spend this month up to `at` (a command's time, when an owner checks
 * before starting GPU work; now for `GET /v2/account/spend-limit`).
 */
@Injectable()
export class SpendStatusHandler {
  constructor(private readonly ledger: SpendLedger) {}

  @QueryHandler(Subjects.spend.status)
  handle(ctx: QueryContext<GetSpendStatusQuery>): Promise<SpendStatus> {
    const at = ctx.payload.at ? new Date(ctx.payload.at) : new Date();
    return this.ledger.status(ctx.actor, at, { check: ctx.payload.check ?? false });
  }
}
