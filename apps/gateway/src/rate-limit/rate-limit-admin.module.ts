import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module.js';
import { RateLimitAdminService } from './rate-limit-admin.service.js';
import { RateLimitOverridesRepository } from './rate-limit-overrides.repository.js';

/** Quota overrides for operators: what the keys CLI needs, without the limiter (and its config). */
@Module({
  imports: [AccountsModule],
  providers: [RateLimitOverridesRepository, RateLimitAdminService],
  exports: [RateLimitAdminService],
})
export class RateLimitAdminModule {}
