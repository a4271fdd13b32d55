import { applyDecorators } from '@nestjs/common';
import { USAGE_BUCKETS } from '@app/contracts';
import { TextQuery } from '../openapi/openapi.decorators.js';

/** The range parameters every billing route takes (billing-query.ts reads them). */
export function BillingRangeQuery(): MethodDecorator {
  return applyDecorators(
    TextQuery('startTime', 'start of the range (RFC 3339); default 30 days before endTime'),
    TextQuery('endTime', 'end of the range, exclusive (RFC 3339); default now'),
    TextQuery('bucketSize', "length of each record's bucket (UTC); default `day`", USAGE_BUCKETS),
  );
}
