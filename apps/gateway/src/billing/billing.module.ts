import { Module } from '@nestjs/common';
import { BillingV1Controller } from './billing-v1.controller.js';
import { BillingV2Controller } from './billing-v2.controller.js';
import { BillingService } from './billing.service.js';
import { SpendLimitController } from './spend-limit.controller.js';
import { SpendLimitService } from './spend-limit.service.js';

@Module({
  controllers: [BillingV2Controller, BillingV1Controller, SpendLimitController],
  providers: [BillingService, SpendLimitService],
})
export class BillingModule {}
