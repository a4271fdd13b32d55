import { Controller, Get, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Actor, BillingV1Record } from '@app/contracts';
import { Auth, CurrentActor, Resource } from '../auth/auth.decorators.js';
import { Operation } from '../openapi/openapi.decorators.js';
import { BillingRangeQuery } from './billing.decorators.js';
import type { BillingQueryParams } from './billing-query.js';
import { BillingService } from './billing.service.js';

const RANGE_ERROR = {
  422: 'a malformed time or bucketSize, startTime not before endTime, or too many buckets',
};

/** `/v1/billing/*`: the v2 billing records as flat arrays (amount and time billed per resource and bucket). */
@ApiTags('Billing')
@Auth({ key: 'bearer' })
@Resource('billing')
@Controller('v1/billing')
export class BillingV1Controller {
  constructor(private readonly billing: BillingService) {}

  @Get('pods')
  @BillingRangeQuery()
  @Operation('Pod billing per pod and bucket', {
    returns: 'BillingV1Record',
    array: true,
    errors: RANGE_ERROR,
  })
  pods(@Query() query: BillingQueryParams, @CurrentActor() actor: Actor): Promise<BillingV1Record[]> {
    return this.billing.v1('pods', query, actor);
  }

  @Get('endpoints')
  @BillingRangeQuery()
  @Operation('Serverless billing per endpoint and bucket', {
    returns: 'BillingV1Record',
    array: true,
    errors: RANGE_ERROR,
  })
  endpoints(@Query() query: BillingQueryParams, @CurrentActor() actor: Actor): Promise<BillingV1Record[]> {
    return this.billing.v1('endpoints', query, actor);
  }

  @Get('networkvolumes')
  @BillingRangeQuery()
  @Operation('Network volume billing per volume and bucket', {
    returns: 'BillingV1Record',
    array: true,
    errors: RANGE_ERROR,
  })
  networkVolumes(
    @Query() query: BillingQueryParams,
    @CurrentActor() actor: Actor,
  ): Promise<BillingV1Record[]> {
    return this.billing.v1('networkvolumes', query, actor);
  }
}
