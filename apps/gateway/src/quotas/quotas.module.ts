import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module.js';
import { AccountQuotaController } from './account-quota.controller.js';
import { QuotasController } from './quotas.controller.js';
import { QuotasService } from './quotas.service.js';
import { TeamQuotaController } from './team-quota.controller.js';

/** The GPU quota routes; the cluster scheduler owns the quotas (docs/api.md, "Quotas"). */
@Module({
  imports: [AccountsModule],
  controllers: [TeamQuotaController, QuotasController, AccountQuotaController],
  providers: [QuotasService],
})
export class QuotasModule {}
