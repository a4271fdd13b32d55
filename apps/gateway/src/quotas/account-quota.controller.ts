import { Controller, Get } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { QuotaView } from '@app/contracts';
import type { Principal } from '../accounts/principal.js';
import { Auth, CurrentPrincipal, Resource } from '../auth/auth.decorators.js';
import { Operation } from '../openapi/openapi.decorators.js';
import { QuotasService } from './quotas.service.js';

/** `GET /v2/account/quota`: the GPU quota of the account the key acts for (a team key: its team's). */
@ApiTags('Quotas')
@Auth({ key: 'bearer' })
@Resource('team')
@Controller('v2/account/quota')
export class AccountQuotaController {
  constructor(private readonly quotas: QuotasService) {}

  @Get()
  @Operation("The account's GPU quota and what it holds against each limit", {
    returns: 'QuotaView',
    description:
      "Every role reads it. A team key answers its team's; a personal key its holder's own account's, which the " +
      "operator's default governs.",
  })
  get(@CurrentPrincipal() principal: Principal): Promise<QuotaView> {
    return this.quotas.account(principal);
  }
}
