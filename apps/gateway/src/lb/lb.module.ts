import { Module } from '@nestjs/common';
import { JobsModule } from '../jobs/jobs.module.js';
import { LbLoad } from './lb-load.js';
import { LbProxy } from './lb-proxy.js';
import { LbWorkers } from './lb-workers.js';
import { LbController } from './lb.controller.js';
import { LbService } from './lb.service.js';

/** Load-balancing endpoints: routing, readiness (from pod-lifecycle), the proxy and the load reports (ADR 26). */
@Module({
  imports: [JobsModule],
  controllers: [LbController],
  providers: [LbWorkers, LbLoad, LbProxy, LbService],
})
export class LbModule {}
