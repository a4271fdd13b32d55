import type { LbWorkerState } from '@app/contracts';

/** What a `GET /ping` answer means (null: no answer): 200 ready, 204 initializing, anything else unhealthy. */
export function pingState(status: number | null): Exclude<LbWorkerState, 'draining'> {
  if (status === 200) return 'ready';
  if (status === 204) return 'initializing';
  return 'unhealthy';
}

/**
 * Whether a worker being drained may be stopped: once the gateways had time to hear of the drain and report
 * (`settleMs`) no report still fresh names a request in flight on it, or when the drain ran out of time.
 */
export function drainDone(input: {
  elapsedMs: number;
  settleMs: number;
  timeoutMs: number;
  inFlightReported: number;
}): boolean {
  if (input.elapsedMs >= input.timeoutMs) return true;
  return input.elapsedMs >= input.settleMs && input.inFlightReported === 0;
}
