import { Module } from '@nestjs/common';
import { PodUsageRepository } from '../pods/usage/pod-usage.repository.js';
import { SetSpendLimitHandler } from './set-spend-limit/set-spend-limit.handler.js';
import { SpendLedger } from './spend-ledger.service.js';
import { SpendLimitsRepository } from './spend-limits.repository.js';
import { SpendStatusHandler } from './spend-status/spend-status.handler.js';

/** Monthly spend limits (docs/adr/0023-spend-limits.md): set, read, and checked before new GPU work. */
@Module({
  providers: [
    SpendLimitsRepository,
    PodUsageRepository,
    SpendLedger,
    SetSpendLimitHandler,
    SpendStatusHandler,
  ],
  exports: [SpendLedger],
})
export class SpendModule {}
