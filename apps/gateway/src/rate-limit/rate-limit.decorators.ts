import { SetMetadata } from '@nestjs/common';
import type { RateLimitPolicyName } from '../rate-limit-policies.js';

export const RATE_LIMIT_POLICY = Symbol('gateway:rate-limit-policy');
export const NO_RATE_LIMIT = Symbol('gateway:no-rate-limit');

export interface RateLimitPolicyRule {
  policy: RateLimitPolicyName;
  /**
   * For the per-endpoint policies (`queue.*`): the route parameter naming the serverless endpoint. Defaults to
   * the route's `@Auth({ endpointParam })`.
   */
  endpointParam?: string;
}

/**
 * The policy counting this route (or every route of a controller). Authenticated routes without one count
 * under `rest`. The queue job routes name theirs, e.g.
 *
 *   @Auth({ key: 'raw-or-bearer', endpointParam: 'endpointId' })
 *   @RateLimitPolicy('queue.run')
 *   @Post(':endpointId/run')
 */
export const RateLimitPolicy = (
  policy: RateLimitPolicyName,
  options: { endpointParam?: string } = {},
): MethodDecorator & ClassDecorator => SetMetadata(RATE_LIMIT_POLICY, { policy, ...options });

/**
 * A route that is never rate-limited and never carries rate-limit headers: the worker routes (job-take,
 * job-done, ...). `@Public()` routes (health, readiness, metrics) are not limited either.
 */
export const NoRateLimit = (): MethodDecorator & ClassDecorator => SetMetadata(NO_RATE_LIMIT, true);
