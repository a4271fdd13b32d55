import { type BeforeApplicationShutdown, type ExecutionContext, Injectable, Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { type GqlContextType, GqlExecutionContext } from '@nestjs/graphql';
import type { FastifyReply } from 'fastify';
import { DomainError, ErrorCode } from '@app/contracts';
import type { Principal } from '../accounts/accounts.service.js';
import { HandlerMetadata } from '../edge/handler-metadata.js';
import { GatewayConfig } from '../gateway.config.js';
import { type CounterHit, RateLimitCountersRepository } from './rate-limit-counters.repository.js';
import { type CounterSnapshot, decide, type RateLimitDecision } from './rate-limit-decision.js';
import { counterKey, LocalCounters } from './rate-limit-local-counters.js';
import { NO_RATE_LIMIT, RATE_LIMIT_POLICY, type RateLimitPolicyRule } from './rate-limit.decorators.js';
import {
  RATE_LIMIT_HEADER,
  RATE_LIMIT_POLICY_HEADER,
  RETRY_AFTER_HEADER,
  rateLimitField,
  rateLimitPolicyField,
} from './rate-limit.headers.js';
import { rateLimitMetrics } from './rate-limit.metrics.js';
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
 * Decided in memory (docs/adr/0012-edge-auth-cache-and-limiter.md): a counter this replica used within the last
 * RATE_LIMIT_FLUSH_MS + RATE_LIMIT_STORE_TIMEOUT_MS is decided from the store's last total plus what this replica
 * admitted since, with no round trip; every RATE_LIMIT_FLUSH_MS one statement sends the local increments of
 * every counter used and brings back the totals, the other replicas' counts and the users' overrides included.
 * A counter unknown here or gone stale is asked of the store with the exact statement (one request at a time
 * per counter; the requests arriving meanwhile wait for it and are then decided locally). The price: across N
 * replicas a window may admit more than its quota, by at most what the other replicas admit in about two flush
 * intervals (the ADR gives the bound).
 *
 * Store failures FAIL OPEN: when the counter store errs or does not answer within RATE_LIMIT_STORE_TIMEOUT_MS the
 * request is admitted without rate-limit headers, a warning is logged, `gateway_rate_limit_store_failures_total`
 * and `gateway_rate_limit_requests_total{outcome="fail_open"}` go up, and for RATE_LIMIT_STORE_BACKOFF_MS the
 * store is not asked at all (so an outage costs each request nothing, not a timeout). The limiter protects
 * capacity, it is not an access control: an outage of it must not become an outage of the API.
 */
@Injectable()
export class RateLimiter implements BeforeApplicationShutdown {
  private readonly logger = new Logger('rate-limit');
  private readonly enabled: boolean;
  private readonly policies: ReadonlyMap<RateLimitPolicyName, RateLimitPolicy>;
  private readonly backoffMs: number;
  private readonly flushMs: number;
  private readonly costPerUnit: number;
  /** Until when (epoch ms) the store is not asked after a failure. */
  private backoffUntil = 0;
  private readonly local: LocalCounters;
  /** The exact hits under way, by counter: later requests of that counter wait for them. */
  private readonly refreshing = new Map<string, Promise<CounterSnapshot | null>>();
  private flushTimer?: NodeJS.Timeout;
  private flushing?: Promise<void>;

  /** The route's policy rule, or null for a `@NoRateLimit()` route. */
  private readonly rules: HandlerMetadata<RateLimitPolicyRule | null>;

  constructor(
    reflector: Reflector,
    private readonly counters: RateLimitCountersRepository,
    config: GatewayConfig,
  ) {
    this.rules = new HandlerMetadata((targets) =>
      reflector.getAllAndOverride<boolean>(NO_RATE_LIMIT, targets)
        ? null
        : (reflector.getAllAndOverride<RateLimitPolicyRule>(RATE_LIMIT_POLICY, targets) ?? DEFAULT_RULE),
    );
    this.enabled = config.RATE_LIMITS_ENABLED;
    this.policies = policiesFrom(config);
    this.backoffMs = config.RATE_LIMIT_STORE_BACKOFF_MS;
    this.costPerUnit = config.GRAPHQL_COST_PER_UNIT;
    this.flushMs = config.RATE_LIMIT_FLUSH_MS;
    // Older than one flush interval plus the longest a flush may take: the flushes have stopped refreshing it.
    this.local = new LocalCounters(config.RATE_LIMIT_FLUSH_MS + config.RATE_LIMIT_STORE_TIMEOUT_MS);
  }

  /** Sends what is still unflushed (a graceful stop loses no counts), then stops flushing. */
  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.flushTimer);
    this.flushTimer = undefined;
    await this.flushing;
    await this.flush();
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
    graphql.rateLimit ??= this.limit(
      this.policyNamed('graphql'),
      principal,
      '',
      costUnits(graphql.cost, this.costPerUnit),
      graphql.reply,
    );
    return graphql.rateLimit;
  }

  private policyNamed(name: RateLimitPolicyName): RateLimitPolicy {
    const policy = this.policies.get(name);
    if (!policy) throw new Error(`unknown rate-limit policy ${name}`);
    return policy;
  }

  /** Counts `units` of the caller's request under `policy`, sets the headers on `reply`; throws a 429. */
  private async limit(
    policy: RateLimitPolicy,
    principal: Principal,
    scopeKey: string,
    units: number,
    reply: HeaderSink,
  ): Promise<void> {
    if (principal.user.rateLimitExempt) {
      rateLimitMetrics.requests.inc({ policy: policy.name, outcome: 'exempt' });
      return;
    }
    const decision = await this.count(policy, principal.user.id, scopeKey, units);
    if (!decision) return;
    void reply.header(RATE_LIMIT_HEADER, rateLimitField(decision.windows));
    void reply.header(RATE_LIMIT_POLICY_HEADER, rateLimitPolicyField(decision.windows));
    if (decision.admitted) {
      rateLimitMetrics.requests.inc({ policy: policy.name, outcome: 'admitted' });
      return;
    }
    rateLimitMetrics.requests.inc({ policy: policy.name, outcome: 'limited' });
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
   */
  async enforceRoute(
    name: RateLimitPolicyName,
    principal: Principal,
    endpointId: string,
    reply: HeaderSink,
  ): Promise<void> {
    if (!this.enabled) return;
    const policy = this.policyNamed(name);
    const scopeKey = principal.user.rateLimitExempt || policy.scope === 'user' ? '' : endpointId;
    await this.limit(policy, principal, scopeKey, 1, reply);
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

  /** The verdict, or null when the store failed (fail open: admitted, no headers). */
  private async count(
    policy: RateLimitPolicy,
    userId: string,
    scopeKey: string,
    units: number,
  ): Promise<RateLimitDecision | null> {
    const failOpen = () => {
      rateLimitMetrics.requests.inc({ policy: policy.name, outcome: 'fail_open' });
      return null;
    };
    if (Date.now() < this.backoffUntil) return failOpen();
    const hit: CounterHit = {
      userId,
      policy: policy.name,
      scopeKey,
      windowSeconds: policy.windowSeconds,
      defaultQuotas: policy.quotas,
    };
    const key = counterKey(hit);
    if (this.local.isFresh(key, Date.now()))
      return decide(this.local.admit(key, Date.now(), units), policy.windowSeconds);
    const pending = this.refreshing.get(key);
    if (pending) {
      // Another request of this counter is asking the store: decide from its answer, locally.
      if (!(await pending) || !this.local.isFresh(key, Date.now())) return failOpen();
      return decide(this.local.admit(key, Date.now(), units), policy.windowSeconds);
    }
    const asking = this.exactHit(key, hit, units);
    this.refreshing.set(key, asking);
    try {
      const snapshot = await asking;
      return snapshot ? decide(snapshot, policy.windowSeconds) : failOpen();
    } finally {
      this.refreshing.delete(key);
    }
  }

  /** The exact statement for a counter not known here (or stale): counts this request, refreshes the counter. */
  private async exactHit(key: string, hit: CounterHit, units: number): Promise<CounterSnapshot | null> {
    const stopTimer = rateLimitMetrics.storeSeconds.startTimer();
    const sentAt = Date.now();
    try {
      const snapshot = await this.counters.hit(hit, () => Date.now() < this.backoffUntil, units);
      if (!snapshot) return null;
      stopTimer();
      this.local.install(key, hit, snapshot, sentAt, Date.now());
      this.startFlushing();
      return snapshot;
    } catch (error) {
      this.storeFailed(error);
      return null;
    }
  }

  private startFlushing(): void {
    if (this.flushTimer) return;
    this.flushTimer = setInterval(() => {
      // One flush at a time: a slow one delays the next rather than stacking statements on the store.
      this.flushing ??= this.flush().finally(() => (this.flushing = undefined));
    }, this.flushMs);
    // Nothing to keep a process alive for: shutdown flushes explicitly.
    this.flushTimer.unref();
  }

  /** Sends every local increment (and asks every counter used since the last flush) in one statement. */
  private async flush(): Promise<void> {
    const sentAt = Date.now();
    const batch = this.local.beginFlush(sentAt);
    if (!batch.length) return;
    const stopTimer = rateLimitMetrics.storeSeconds.startTimer();
    try {
      const rows = await this.counters.flush(batch);
      stopTimer();
      this.local.endFlush(rows, sentAt, Date.now());
    } catch (error) {
      this.local.failFlush();
      this.storeFailed(error);
    }
  }

  private storeFailed(error: unknown): void {
    const message = (error as Error).message ?? String(error);
    const reason = /timeout|timed out|canceling statement/i.test(message) ? 'timeout' : 'error';
    rateLimitMetrics.storeFailures.inc({ reason });
    this.backoffUntil = Date.now() + this.backoffMs;
    this.logger.warn(
      `rate-limit store unavailable (${reason}: ${message}); admitting requests without limits for ` +
        `${this.backoffMs} ms (fail open)`,
    );
  }
}
