import { type BeforeApplicationShutdown, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { type GqlContextType, GqlExecutionContext } from '@nestjs/graphql';
import type { FastifyReply } from 'fastify';
import { DomainError, ErrorCode } from '@app/contracts';
import type { Principal } from '../accounts/accounts.service.js';
import { HandlerMetadata } from '../edge/handler-metadata.js';
import { GatewayConfig } from '../gateway.config.js';
import { RateLimitCountersRepository } from './rate-limit-counters.repository.js';
import type { RateLimitDecision } from './rate-limit-decision.js';
import { RateLimitCounting } from './rate-limit-counting.js';
import { NO_RATE_LIMIT, RATE_LIMIT_POLICY, type RateLimitPolicyRule } from './rate-limit.decorators.js';
import {
  RATE_LIMIT_HEADER,
  RATE_LIMIT_POLICY_HEADER,
  RETRY_AFTER_HEADER,
  rateLimitField,
  rateLimitPolicyField,
} from './rate-limit.headers.js';
import { countOutcome } from './rate-limit.metrics.js';
import type { GatewayGraphqlContext } from '../edge/graphql-context.js';
import {
  costUnits,
  policiesFrom,
  type RateLimitPolicy,
  type RateLimitPolicyName,
} from '../rate-limit-policies.js';

const DEFAULT_RULE: RateLimitPolicyRule = { policy: 'rest' };

/** Where the RateLimit headers go: a Fastify reply, or the raw answer to an upgrade. */
export interface HeaderSink {
  header(name: string, value: string): unknown;
}

interface LimitedRequest {
  params?: Record<string, string | undefined>;
}

/**
 * Per-user rate limits (docs/adr/0004-rate-limits.md). `AuthGuard` calls `enforce` once the caller is
 * authenticated and before it checks the key's scope, so 403s carry the headers too and 401s carry none.
 *
 * Decided in memory, flushed to Postgres in batches, failing open when the store fails: RateLimitCounting
 * (docs/adr/0012-edge-auth-cache-and-limiter.md). The price: across N replicas a window may admit more than its
 * quota, by at most what the other replicas admit in about two flush intervals (the ADR gives the bound). The
 * limiter protects capacity, it is not an access control: an outage of it must not become an outage of the API.
 */
@Injectable()
export class RateLimiter implements BeforeApplicationShutdown {
  private readonly enabled: boolean;
  private readonly policies: ReadonlyMap<RateLimitPolicyName, RateLimitPolicy>;
  private readonly costPerUnit: number;
  private readonly counting: RateLimitCounting;

  /** The route's policy rule, or null for a `@NoRateLimit()` route. */
  private readonly rules: HandlerMetadata<RateLimitPolicyRule | null>;

  constructor(reflector: Reflector, counters: RateLimitCountersRepository, config: GatewayConfig) {
    this.rules = new HandlerMetadata((targets) =>
      reflector.getAllAndOverride<boolean>(NO_RATE_LIMIT, targets)
        ? null
        : (reflector.getAllAndOverride<RateLimitPolicyRule>(RATE_LIMIT_POLICY, targets) ?? DEFAULT_RULE),
    );
    this.enabled = config.RATE_LIMITS_ENABLED;
    this.policies = policiesFrom(config);
    this.costPerUnit = config.GRAPHQL_COST_PER_UNIT;
    this.counting = new RateLimitCounting(counters, {
      flushMs: config.RATE_LIMIT_FLUSH_MS,
      storeTimeoutMs: config.RATE_LIMIT_STORE_TIMEOUT_MS,
      backoffMs: config.RATE_LIMIT_STORE_BACKOFF_MS,
    });
  }

  /** Sends what is still unflushed (a graceful stop loses no counts), then stops flushing. */
  beforeApplicationShutdown(): Promise<void> {
    return this.counting.stop();
  }

  /**
   * Counts the request under its route's policy (a GraphQL operation under `graphql`) and sets the RateLimit and
   * RateLimit-Policy headers; throws RATE_LIMITED (429, with Retry-After) when a window is full. Exempt users,
   * `@NoRateLimit()` routes and other contexts (NATS handlers) are neither counted nor given headers.
   */
  async enforce(
    context: ExecutionContext,
    principal: Principal,
    auth: { endpointParam?: string },
  ): Promise<void> {
    if (!this.enabled) return;
    const type = context.getType<GqlContextType>();
    if (type === 'graphql') return this.enforceGraphql(context, principal);
    if (type !== 'http') return;
    const rule = this.rules.of(context);
    if (!rule) return;
    const policy = this.policyNamed(rule.policy);
    const http = context.switchToHttp();
    const scopeKey = principal.user.rateLimitExempt
      ? ''
      : this.scopeKey(policy, rule, auth, http.getRequest<LimitedRequest>());
    await this.limit(policy, principal, scopeKey, 1, http.getResponse<FastifyReply>());
  }

  /**
   * A GraphQL operation counts once under `graphql`, with the units its cost is worth (docs/adr/0014), however
   * many top-level fields it selects: each of their resolvers is guarded, the first one decides, the others
   * await that verdict (and throw the same 429).
   */
  private enforceGraphql(context: ExecutionContext, principal: Principal): Promise<void> {
    if (!this.rules.of(context)) return Promise.resolve();
    const graphql = GqlExecutionContext.create(context).getContext<GatewayGraphqlContext>();
    // Always a promise (a 429 decided at once rejects it), for the other resolvers to await.
    graphql.rateLimit ??= (async () =>
      this.limit(
        this.policyNamed('graphql'),
        principal,
        '',
        costUnits(graphql.cost, this.costPerUnit),
        graphql.reply,
      ))();
    return graphql.rateLimit;
  }

  private policyNamed(name: RateLimitPolicyName): RateLimitPolicy {
    const policy = this.policies.get(name);
    if (!policy) throw new Error(`unknown rate-limit policy ${name}`);
    return policy;
  }

  /**
   * Counts `units` of the caller's request under `policy`, sets the headers on `reply`; throws a 429. Returns
   * nothing when decided at once (a counter known here: most requests), so the edge's hot routes await nothing.
   */
  private limit(
    policy: RateLimitPolicy,
    principal: Principal,
    scopeKey: string,
    units: number,
    reply: HeaderSink,
  ): void | Promise<void> {
    if (principal.user.rateLimitExempt) {
      countOutcome(policy.name, 'exempt');
      return;
    }
    const verdict = this.counting.count(policy, principal.user.id, scopeKey, units);
    if (verdict instanceof Promise) {
      return verdict.then((decision) => this.apply(decision, policy, scopeKey, reply));
    }
    this.apply(verdict, policy, scopeKey, reply);
  }

  /** Sets the RateLimit headers of a verdict (none when the store failed: fail open); throws a 429. */
  private apply(
    decision: RateLimitDecision | null,
    policy: RateLimitPolicy,
    scopeKey: string,
    reply: HeaderSink,
  ): void {
    if (!decision) return;
    void reply.header(RATE_LIMIT_HEADER, rateLimitField(decision.windows));
    void reply.header(RATE_LIMIT_POLICY_HEADER, rateLimitPolicyField(decision.windows));
    if (decision.admitted) {
      countOutcome(policy.name, 'admitted');
      return;
    }
    countOutcome(policy.name, 'limited');
    const { window, alsoFull } = decision.exceeded ?? { window: decision.windows[0], alsoFull: [] };
    void reply.header(RETRY_AFTER_HEADER, String(window.resetSeconds));
    const what =
      policy.scope === 'user-endpoint'
        ? `${policy.name} on endpoint ${scopeKey}`
        : policy.name === 'graphql'
          ? 'GraphQL'
          : 'this API';
    const counted = policy.name === 'graphql' ? 'cost units' : 'requests';
    const also = alsoFull.length ? ` (the ${alsoFull.join(' and ')} window is full too)` : '';
    throw new DomainError(
      ErrorCode.RateLimited,
      `rate limit exceeded: the ${window.name} window of ${what} allows ${window.quota} ${counted} per ` +
        `${window.windowSeconds} s per user${also}; retry after ${window.resetSeconds} s`,
    );
  }

  /**
   * A request no Nest route sees: a job read served by its own Fastify route (jobs/job-read-routes.setup.ts), or a
   * request or WebSocket upgrade to a load-balancing endpoint (`lb`, ADR 31; LbAccess). Counted as `enforce` counts
   * it, under `policy` of the user (and the endpoint, for a per-endpoint policy); the headers go to `reply`.
   * Returns nothing when decided at once, as `limit`.
   */
  enforceRoute(
    name: RateLimitPolicyName,
    principal: Principal,
    endpointId: string,
    reply: HeaderSink,
  ): void | Promise<void> {
    if (!this.enabled) return;
    const policy = this.policyNamed(name);
    const scopeKey = principal.user.rateLimitExempt || policy.scope === 'user' ? '' : endpointId;
    return this.limit(policy, principal, scopeKey, 1, reply);
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
}
