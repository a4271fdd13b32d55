import { Body, Controller, Delete, Get, HttpCode, Put } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { QuotaInput, type QuotaListView, type QuotaView } from '@app/contracts';
import type { Principal } from '../accounts/principal.js';
import { Auth, CurrentPrincipal, Resource } from '../auth/auth.decorators.js';
import { Operation } from '../openapi/openapi.decorators.js';
import { QuotasService } from './quotas.service.js';

/** `/v2/quotas`: every account's GPU quota and the default, for the deployment's operators only. */
@ApiTags('Quotas')
@Auth({ key: 'bearer', operator: true })
@Resource('team')
@Controller('v2/quotas')
export class QuotasController {
  constructor(private readonly quotas: QuotasService) {}

  @Get()
  @Operation("The default and every account's own GPU quota, with their use (operators only)", {
    returns: 'QuotaListView',
  })
  list(@CurrentPrincipal() principal: Principal): Promise<QuotaListView> {
    return this.quotas.list(principal);
  }

  @Get('default')
  @Operation("The default GPU quota: every account's without one of its own (operators only)", {
    returns: 'QuotaView',
  })
  getDefault(@CurrentPrincipal() principal: Principal): Promise<QuotaView> {
    return this.quotas.defaultQuota(principal);
  }

  @Put('default')
  @Operation('Set the default GPU quota (operators only)', {
    returns: 'QuotaView',
    description:
      "It applies to every account, team or personal, without a quota of its own. The body is a team quota's; " +
      'the use shown is that of no account (`accountId` `*`).',
    errors: {
      409: 'the quota would be below what is in use now (each breach named in `errors`)',
      422: 'a limit or the cohort fails validation (each named in `errors`)',
    },
  })
  setDefault(@Body() dto: QuotaInput, @CurrentPrincipal() principal: Principal): Promise<QuotaView> {
    return this.quotas.setDefault(principal, dto);
  }

  @Delete('default')
  @HttpCode(204)
  @Operation('Remove the default GPU quota (operators only)', {
    description: 'Accounts without a quota of their own are unlimited again.',
  })
  clearDefault(@CurrentPrincipal() principal: Principal): Promise<void> {
    return this.quotas.clearDefault(principal);
  }
}
