import { Body, Controller, Delete, Get, HttpCode, Param, Put, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { QuotaInput, type QuotaHistoryView, type QuotaView } from '@app/contracts';
import type { Principal } from '../accounts/principal.js';
import { Auth, CurrentPrincipal, Resource } from '../auth/auth.decorators.js';
import { IntQuery, Operation } from '../openapi/openapi.decorators.js';
import { QUOTA_WINDOW, quotaWindow } from './quota-window.js';
import { QuotasService } from './quotas.service.js';

const OPERATORS = { key: 'bearer', operator: true } as const;

/**
 * `/v2/teams/{teamId}/quota`: a team's GPU quota (docs/api.md, "Quotas"). Operators set and clear it; the team's
 * members, and operators, read it and its history.
 */
@ApiTags('Quotas')
@Auth({ key: 'bearer' })
@Resource('team')
@Controller('v2/teams/:teamId/quota')
export class TeamQuotaController {
  constructor(private readonly quotas: QuotasService) {}

  @Get()
  @Operation("The team's GPU quota and what it holds against each limit", {
    returns: 'QuotaView',
    description:
      'Any member of the team, or an operator. `source` says whether the team has its own quota, the ' +
      "operator's default applies, or none (unlimited).",
  })
  get(@Param('teamId') teamId: string, @CurrentPrincipal() principal: Principal): Promise<QuotaView> {
    return this.quotas.team(principal, teamId);
  }

  @Put()
  @Auth(OPERATORS)
  @Operation("Set the team's GPU quota (operators only)", {
    returns: 'QuotaView',
    description:
      'The whole quota, replacing the one before: one limit per GPU type (and data center, or every one), each ' +
      'with the GPUs the team may hold and how many more it may borrow from idle quota of its cohort. New GPU ' +
      'work above it is refused with 409 QUOTA_EXCEEDED; running work is not stopped.',
    errors: {
      409: 'the quota would be below what is in use now (each breach named in `errors`)',
      422: 'a limit or the cohort fails validation (each named in `errors`)',
    },
  })
  set(
    @Param('teamId') teamId: string,
    @Body() dto: QuotaInput,
    @CurrentPrincipal() principal: Principal,
  ): Promise<QuotaView> {
    return this.quotas.setTeam(principal, teamId, dto);
  }

  @Delete()
  @HttpCode(204)
  @Auth(OPERATORS)
  @Operation("Remove the team's own GPU quota (operators only)", {
    description: "The operator's default applies to the team again (none: unlimited).",
  })
  clear(@Param('teamId') teamId: string, @CurrentPrincipal() principal: Principal): Promise<void> {
    return this.quotas.clearTeam(principal, teamId);
  }

  @Get('history')
  @IntQuery('windowSeconds', QUOTA_WINDOW, 'how far back, in seconds (a minute to a week)')
  @Operation("The team's use of its quota over time: one sample per limit a minute", {
    returns: 'QuotaHistoryView',
    description: 'Any member of the team, or an operator. Samples oldest first.',
    errors: { 422: 'windowSeconds is not a whole number from 60 to 604800' },
  })
  history(
    @Param('teamId') teamId: string,
    @Query('windowSeconds') windowSeconds: unknown,
    @CurrentPrincipal() principal: Principal,
  ): Promise<QuotaHistoryView> {
    return this.quotas.teamHistory(principal, teamId, quotaWindow(windowSeconds));
  }
}
