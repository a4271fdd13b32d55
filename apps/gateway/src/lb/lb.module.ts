import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module.js';
import { JobsModule } from '../jobs/jobs.module.js';
import { RateLimitModule } from '../rate-limit/rate-limit.module.js';
import { LbAccess } from './lb-access.js';
import { LbLoad } from './lb-load.js';
import { LbProxy } from './lb-proxy.js';
import { LbRequestMeter } from './lb-request-meter.js';
import { LbUpgrade } from './lb-upgrade.js';
import { LbWorkers } from './lb-workers.js';
import { LbService } from './lb.service.js';

/**
 * Load-balancing endpoints: routing, readiness (from pod-lifecycle), the proxy and the load reports (ADR 26). No
 * controller: the `/lb/` routes are Fastify's own (lb-routes.setup.ts, ADR 31).
 */
@Module({
  imports: [AccountsModule, JobsModule, RateLimitModule],
  providers: [LbAccess, LbWorkers, LbLoad, LbProxy, LbService, LbUpgrade, LbRequestMeter],
  exports: [LbWorkers, LbLoad],
})
export class LbModule {}
