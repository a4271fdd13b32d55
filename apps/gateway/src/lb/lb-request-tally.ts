import {
  observe,
  type LbRequestTally,
  type LbWorkerGauge,
  type LbWorkerState,
  type MetricsLbRequestCounts,
} from '@app/contracts';

/** How a request to an LB endpoint ended, as the metrics count it. */
export type LbOutcome = { status: number } | 'proxy-error';

/** The status class a request counts in. */
export function statusClassOf(outcome: LbOutcome): keyof MetricsLbRequestCounts {
  if (outcome === 'proxy-error') return 'proxyErrors';
  if (outcome.status >= 500) return 'status5xx';
  if (outcome.status >= 400) return 'status4xx';
  return 'status2xx';
}

const MINUTE_MS = 60_000;

/**
 * The LB requests this replica finished since its last flush, per endpoint and minute (of their end): counters by
 * status class and a latency histogram (latency-histogram.ts). A request costs a map lookup and two increments;
 * `drain()` hands the tallies to one command and starts over.
 */
export class LbRequestTallies {
  private tallies = new Map<string, LbRequestTally>();

  get size(): number {
    return this.tallies.size;
  }

  count(endpointId: string, outcome: LbOutcome, latencyMs: number, endedAt: number): void {
    const minute = Math.floor(endedAt / MINUTE_MS) * MINUTE_MS;
    const key = `${endpointId}\u0000${minute}`;
    let tally = this.tallies.get(key);
    if (!tally) {
      tally = {
        endpointId,
        minute: new Date(minute).toISOString(),
        status2xx: 0,
        status4xx: 0,
        status5xx: 0,
        proxyErrors: 0,
        latencyHist: [],
      };
      this.tallies.set(key, tally);
    }
    tally[statusClassOf(outcome)] += 1;
    observe(tally.latencyHist, Math.max(0, latencyMs));
  }

  /** Everything counted so far; the tallies start over empty. */
  drain(): LbRequestTally[] {
    const out = [...this.tallies.values()];
    this.tallies = new Map();
    return out;
  }
}

/**
 * One endpoint's LB workers by status, as the workers list shows them: ready with a request of this replica in
 * flight is running, ready without is idle; unhealthy and draining are unhealthy.
 */
export function lbWorkerGauge(
  endpointId: string,
  states: ReadonlyMap<string, LbWorkerState>,
  inFlight: ReadonlyMap<string, number>,
): LbWorkerGauge {
  const gauge: LbWorkerGauge = { endpointId, running: 0, idle: 0, initializing: 0, unhealthy: 0 };
  for (const [podId, state] of states) {
    if (state === 'ready') {
      if ((inFlight.get(podId) ?? 0) > 0) gauge.running += 1;
      else gauge.idle += 1;
    } else if (state === 'initializing') gauge.initializing += 1;
    else gauge.unhealthy += 1;
  }
  return gauge;
}
