import { Module } from '@nestjs/common';
import { RateLimitCountersRepository } from './rate-limit-counters.repository.js';
import { RateLimiter } from './rate-limiter.service.js';

/** The limiter `AuthGuard` calls (docs/adr/0004-rate-limits.md). Needs `GatewayConfig` (global). */
@Module({
  providers: [RateLimitCountersRepository, RateLimiter],
  exports: [RateLimiter],
})
export class RateLimitModule {}
