import { Logger } from '@nestjs/common';
import type { RateLimitPolicy } from '../rate-limit-policies.js';
import { type CounterHit, RateLimitCountersRepository } from './rate-limit-counters.repository.js';
import { type CounterSnapshot, decide, type RateLimitDecision } from './rate-limit-decision.js';
import { counterKey, LocalCounters } from './rate-limit-local-counters.js';
import { countOutcome, rateLimitMetrics } from './rate-limit.metrics.js';

export interface CountingSettings {
  flushMs: number;
  storeTimeoutMs: number;
  backoffMs: number;
}

/** A verdict now (a counter known here: most requests), or once the store answered. */
export type Verdict = RateLimitDecision | null | Promise<RateLimitDecision | null>;

/**
 * Counts requests against the shared counters and decides them (docs/adr/0012-edge-auth-cache-and-limiter.md): a
 * counter this replica used within the last flush interval plus store timeout is decided from the store's last
 * total plus what this replica admitted since, synchronously, with no round trip; every `flushMs` one statement
 * sends the local increments of every counter used and brings back the totals, the other replicas' counts and
 * the users' overrides included. A counter unknown here or gone stale is asked of the store with the exact
 * statement (one request at a time per counter; the requests arriving meanwhile wait for it and are then decided
 * locally).
 *
 * Store failures FAIL OPEN (null: admitted, no headers): when the store errs or does not answer within its
 * timeout, a warning is logged, the failure metrics go up, and for `backoffMs` the store is not asked at all (so
 * an outage costs each request nothing, not a timeout).
 */
export class RateLimitCounting {
  private readonly logger = new Logger('rate-limit');
  /** Until when (epoch ms) the store is not asked after a failure. */
  private backoffUntil = 0;
  private readonly local: LocalCounters;
  /** The exact hits under way, by counter: later requests of that counter wait for them. */
  private readonly refreshing = new Map<string, Promise<CounterSnapshot | null>>();
  private flushTimer?: NodeJS.Timeout;
  private flushing?: Promise<void>;

  constructor(
    private readonly counters: RateLimitCountersRepository,
    private readonly settings: CountingSettings,
  ) {
    // Older than one flush interval plus the longest a flush may take: the flushes have stopped refreshing it.
    this.local = new LocalCounters(settings.flushMs + settings.storeTimeoutMs);
  }

  /** Sends what is still unflushed (a graceful stop loses no counts), then stops flushing. */
  async stop(): Promise<void> {
    clearInterval(this.flushTimer);
    this.flushTimer = undefined;
    await this.flushing;
    await this.flush();
  }

  /** The verdict on `units` of the user's request under `policy`, or null when the store failed (fail open). */
  count(policy: RateLimitPolicy, userId: string, scopeKey: string, units: number): Verdict {
    if (Date.now() < this.backoffUntil) return this.failOpen(policy);
    const key = counterKey({ userId, policy: policy.name, scopeKey });
    if (this.local.isFresh(key, Date.now())) {
      return decide(this.local.admit(key, Date.now(), units), policy.windowSeconds);
    }
    const pending = this.refreshing.get(key);
    if (pending) {
      // Another request of this counter is asking the store: decide from its answer, locally.
      return pending.then((snapshot) =>
        snapshot && this.local.isFresh(key, Date.now())
          ? decide(this.local.admit(key, Date.now(), units), policy.windowSeconds)
          : this.failOpen(policy),
      );
    }
    const hit: CounterHit = {
      userId,
      policy: policy.name,
      scopeKey,
      windowSeconds: policy.windowSeconds,
      defaultQuotas: policy.quotas,
    };
    const asking = this.exactHit(key, hit, units);
    this.refreshing.set(key, asking);
    return asking
      .then((snapshot) => (snapshot ? decide(snapshot, policy.windowSeconds) : this.failOpen(policy)))
      .finally(() => this.refreshing.delete(key));
  }

  private failOpen(policy: RateLimitPolicy): null {
    countOutcome(policy.name, 'fail_open');
    return null;
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
    }, this.settings.flushMs);
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
    this.backoffUntil = Date.now() + this.settings.backoffMs;
    this.logger.warn(
      `rate-limit store unavailable (${reason}: ${message}); admitting requests without limits for ` +
        `${this.settings.backoffMs} ms (fail open)`,
    );
  }
}
