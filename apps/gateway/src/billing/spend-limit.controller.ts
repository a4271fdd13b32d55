import { Body, Controller, Get, Put } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { SpendLimitDto, type Actor, type SpendStatus } from '@app/contracts';
import { Auth, CurrentActor, Resource } from '../auth/auth.decorators.js';
import { Operation } from '../openapi/openapi.decorators.js';
import { SpendLimitService } from './spend-limit.service.js';

/**
 * `/v2/account/spend-limit`: the account's monthly spend limits and this month's spend (docs/adr/0023-spend-limits.md).
 * The operator's cap is set with `npm run keys -- spend set`; here the user reads both and sets their own, lower one.
 * pod-lifecycle keeps them and every owner checks them before new GPU work.
 */
@ApiTags('Billing')
@Auth({ key: 'bearer' })
@Resource('billing')
@Controller('v2/account/spend-limit')
export class SpendLimitController {
  constructor(private readonly spend: SpendLimitService) {}

  @Get()
  @Operation("The account's monthly spend limits and this month's spend", { returns: 'SpendStatus' })
  get(@CurrentActor() actor: Actor): Promise<SpendStatus> {
    return this.spend.status(actor);
  }

  @Put()
  @Operation('Set or clear your own monthly spend limit', {
    returns: 'SpendStatus',
    description:
      "`monthlyLimit` in the fleet's price unit, null for none; at most the operator's cap. Once this month's " +
      'spend reaches the lower of the two, new GPU work is refused with 402; running work is not stopped.',
    errors: { 422: "monthlyLimit above the operator's cap" },
  })
  put(@Body() dto: SpendLimitDto, @CurrentActor() actor: Actor): Promise<SpendStatus> {
    return this.spend.setOwn(dto.monthlyLimit, actor);
  }
}
