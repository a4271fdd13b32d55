import { Counter, Histogram } from 'prom-client';
import { metricsRegistry } from '@app/observability';

/** What the limiter did with a request. `fail_open`: the store failed (or is backed off) and it was admitted. */
export type RateLimitOutcome = 'admitted' | 'limited' | 'exempt' | 'fail_open';

/** Outcomes counted since the last scrape, by policy and outcome: added to the counter when it is collected. */
const outcomeTallies = new Map<
  string,
  { labels: { policy: string; outcome: RateLimitOutcome }; count: number }
>();

/**
 * Counts one request's outcome in `gateway_rate_limit_requests_total`. A tally here, not `Counter.inc`: a labelled
 * inc hashes and validates its labels, and this runs on every request (issue 13's edge profile); the counter
 * takes the tallies whenever it is read.
 */
export function countOutcome(policy: string, outcome: RateLimitOutcome): void {
  const key = `${policy}\u0000${outcome}`;
  const tally = outcomeTallies.get(key);
  if (tally) tally.count++;
  else outcomeTallies.set(key, { labels: { policy, outcome }, count: 1 });
}

export const rateLimitMetrics = {
  requests: new Counter({
    name: 'gateway_rate_limit_requests_total',
    help: 'Authenticated requests seen by the rate limiter, by policy and outcome (admitted, limited, exempt, fail_open)',
    labelNames: ['policy', 'outcome'] as const,
    registers: [metricsRegistry],
    collect() {
      for (const tally of outcomeTallies.values()) {
        if (tally.count === 0) continue;
        this.inc(tally.labels, tally.count);
        tally.count = 0;
      }
    },
  }),
  storeFailures: new Counter({
    name: 'gateway_rate_limit_store_failures_total',
    help: 'Counter-store calls that failed or timed out; each such request was admitted (fail open)',
    labelNames: ['reason'] as const,
    registers: [metricsRegistry],
  }),
  storeSeconds: new Histogram({
    name: 'gateway_rate_limit_store_seconds',
    help: 'Time of one counter-store statement (the exact hit of a counter not known locally, or a batched flush), successful ones only',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25],
    registers: [metricsRegistry],
  }),
};
