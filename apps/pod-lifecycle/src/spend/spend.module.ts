import { type DynamicModule, Module, type Type } from '@nestjs/common';
import { PodUsageReader } from './pod-usage.reader.js';
import { SetSpendLimitHandler } from './set-spend-limit/set-spend-limit.handler.js';
import { SpendLedger } from './spend-ledger.service.js';
import { SpendLimitsRepository } from './spend-limits.repository.js';
import { SpendStatusHandler } from './spend-status/spend-status.handler.js';

/**
 * Monthly spend limits (docs/adr/0023-spend-limits.md): set, read, and checked before new GPU work. The pods
 * feature, which meters usage and checks the limit, registers it with its usage reader.
 */
@Module({})
export class SpendModule {
  static register(usage: Type<PodUsageReader>): DynamicModule {
    return {
      module: SpendModule,
      providers: [
        SpendLimitsRepository,
        { provide: PodUsageReader, useExisting: usage },
        usage,
        SpendLedger,
        SetSpendLimitHandler,
        SpendStatusHandler,
      ],
      exports: [SpendLedger],
    };
  }
}
