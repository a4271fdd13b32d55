import { type ExecutionContext, Injectable, Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply } from 'fastify';
import { DomainError, ErrorCode } from '@app/contracts';
import type { Principal } from '../accounts/accounts.service.js';
import { GatewayConfig } from '../gateway.config.js';
import { RateLimitCountersRepository } from './rate-limit-counters.repository.js';
import { decide, type RateLimitDecision } from './rate-limit-decision.js';
import { NO_RATE_LIMIT, RATE_LIMIT_POLICY, type RateLimitPolicyRule } from './rate-limit.decorators.js';
import {
  RATE_LIMIT_HEADER,
  RATE_LIMIT_POLICY_HEADER,
  RETRY_AFTER_HEADER,
  rateLimitField,
  rateLimitPolicyField,
} from './rate-limit.headers.js';
import { rateLimitMetrics } from './rate-limit.metrics.js';
import { policiesFrom, type RateLimitPolicy, type RateLimitPolicyName } from './rate-limit-policies.js';

const DEFAULT_RULE: RateLimitPolicyRule = { policy: 'rest' };

interface LimitedRequest {
  params?: Record<string, string | undefined>;
}

/**
 * Per-user rate limits (docs/adr/0004-rate-limits.md). `AuthGuard` calls `enforce` once the caller is
 * authenticated and before it checks the key's scope, so 403s carry the headers too and 401s carry none.
 *
 * Store failures FAIL OPEN: when the counter store errs or does not answer within RATE_LIMIT_STORE_TIMEOUT_MS the
 * request is admitted without rate-limit headers, a warning is logged, `gateway_rate_limit_store_failures_total`
 * and `gateway_rate_limit_requests_total{outcome="fail_open"}` go up, and for RATE_LIMIT_STORE_BACKOFF_MS the
 * store is not asked at all (so an outage costs each request nothing, not a timeout). The limiter protects
 * capacity, it is not an access control: an outage of it must not become an outage of the API.
 */
@Injectable()
export class RateLimiter {
  private readonly logger = new Logger('rate-limit');
  private readonly enabled: boolean;
  private readonly policies: ReadonlyMap<RateLimitPolicyName, RateLimitPolicy>;
  private readonly backoffMs: number;
  /** Until when (epoch ms) the store is not asked after a failure. */
  private backoffUntil = 0;

  constructor(
    private readonly reflector: Reflector,
    private readonly counters: RateLimitCountersRepository,
    config: GatewayConfig,
  ) {
    this.enabled = config.RATE_LIMITS_ENABLED;
    this.policies = policiesFrom(config);
    this.backoffMs = config.RATE_LIMIT_STORE_BACKOFF_MS;
  }

  /**
   * Counts the request under its route's policy and sets the RateLimit and RateLimit-Policy headers; throws
   * RATE_LIMITED (429, with Retry-After) when a window is full. Exempt users, `@NoRateLimit()` routes and
   * non-HTTP contexts are neither counted nor given headers.
   */
  async enforce(
    context: ExecutionContext,
    principal: Principal,
    auth: { endpointParam?: string },
  ): Promise<void> {
    if (!this.enabled || context.getType() !== 'http') return;
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(NO_RATE_LIMIT, targets)) return;
    const rule =
      this.reflector.getAllAndOverride<RateLimitPolicyRule>(RATE_LIMIT_POLICY, targets) ?? DEFAULT_RULE;
    if (principal.user.rateLimitExempt) {
      rateLimitMetrics.requests.inc({ policy: rule.policy, outcome: 'exempt' });
      return;
    }
    const policy = this.policies.get(rule.policy);
    if (!policy) throw new Error(`unknown rate-limit policy ${rule.policy}`);
    const http = context.switchToHttp();
    const scopeKey = this.scopeKey(policy, rule, auth, http.getRequest<LimitedRequest>());

    const decision = await this.count(policy, principal.user.id, scopeKey);
    if (!decision) return;
    const reply = http.getResponse<FastifyReply>();
    void reply.header(RATE_LIMIT_HEADER, rateLimitField(decision.windows));
    void reply.header(RATE_LIMIT_POLICY_HEADER, rateLimitPolicyField(decision.windows));
    if (decision.admitted) {
      rateLimitMetrics.requests.inc({ policy: policy.name, outcome: 'admitted' });
      return;
    }
    rateLimitMetrics.requests.inc({ policy: policy.name, outcome: 'limited' });
    const { window, alsoFull } = decision.exceeded ?? { window: decision.windows[0], alsoFull: [] };
    void reply.header(RETRY_AFTER_HEADER, String(window.resetSeconds));
    const what = policy.scope === 'user-endpoint' ? `${policy.name} on endpoint ${scopeKey}` : 'this API';
    const also = alsoFull.length ? ` (the ${alsoFull.join(' and ')} window is full too)` : '';
    throw new DomainError(
      ErrorCode.RateLimited,
      `rate limit exceeded: the ${window.name} window of ${what} allows ${window.quota} requests per ` +
        `${window.windowSeconds} s per user${also}; retry after ${window.resetSeconds} s`,
    );
  }

  /** The counter's key besides the user: the serverless endpoint for the per-endpoint policies. */
  private scopeKey(
    policy: RateLimitPolicy,
    rule: RateLimitPolicyRule,
    auth: { endpointParam?: string },
    request: LimitedRequest,
  ): string {
    switch (policy.scope) {
      case 'user':
        return '';
      case 'user-endpoint': {
        const param = rule.endpointParam ?? auth.endpointParam;
        const endpointId = param ? request.params?.[param] : undefined;
        if (!endpointId) {
          throw new Error(
            `route with rate-limit policy ${policy.name} names no endpoint parameter: ` +
              `use @RateLimitPolicy('${policy.name}', { endpointParam }) or @Auth({ endpointParam })`,
          );
        }
        return endpointId;
      }
    }
  }

  /** The store's verdict, or null when it failed (fail open: admitted, no headers). */
  private async count(
    policy: RateLimitPolicy,
    userId: string,
    scopeKey: string,
  ): Promise<RateLimitDecision | null> {
    if (Date.now() < this.backoffUntil) {
      rateLimitMetrics.requests.inc({ policy: policy.name, outcome: 'fail_open' });
      return null;
    }
    const stopTimer = rateLimitMetrics.storeSeconds.startTimer();
    try {
      const snapshot = await this.counters.hit(
        {
          userId,
          policy: policy.name,
          scopeKey,
          windowSeconds: policy.windowSeconds,
          defaultQuotas: policy.quotas,
        },
        () => Date.now() < this.backoffUntil,
      );
      if (!snapshot) {
        rateLimitMetrics.requests.inc({ policy: policy.name, outcome: 'fail_open' });
        return null;
      }
      stopTimer();
      return decide(snapshot, policy.windowSeconds);
    } catch (error) {
      const message = (error as Error).message ?? String(error);
      const reason = /timeout|timed out|canceling statement/i.test(message) ? 'timeout' : 'error';
      rateLimitMetrics.storeFailures.inc({ reason });
      rateLimitMetrics.requests.inc({ policy: policy.name, outcome: 'fail_open' });
      this.backoffUntil = Date.now() + this.backoffMs;
      this.logger.warn(
        `rate-limit store unavailable (${reason}: ${message}); admitting requests without limits for ` +
          `${this.backoffMs} ms (fail open)`,
      );
      return null;
    }
  }
}
