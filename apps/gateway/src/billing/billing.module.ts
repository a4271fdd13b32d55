import { Module } from '@nestjs/common';
import { BillingV1Controller } from './billing-v1.controller.js';
import { BillingV2Controller } from './billing-v2.controller.js';
import { BillingService } from './billing.service.js';

@Module({
  controllers: [BillingV2Controller, BillingV1Controller],
  providers: [BillingService],
})
export class BillingModule {}
