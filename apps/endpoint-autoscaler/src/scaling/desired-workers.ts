import type { ScalerType } from '@app/contracts';

/** What the scaler looks at for one endpoint on one tick. */
export interface ScalingInputs {
  scalerType: ScalerType;
  /** QUEUE_DELAY: seconds the oldest queued job may wait; REQUEST_COUNT: jobs per worker. At least 1. */
  scalerValue: number;
  workersMin: number;
  workersMax: number;
  /** Workers up or coming up (the autoscaler wants them RUNNING). */
  current: number;
  /**
   * Of `current`, those that will take a job but have not yet: pods not RUNNING (being created, provisioned or
   * started), and RUNNING pods whose worker has not asked for a job yet (it is still loading).
   */
  starting: number;
  /** Queued jobs that may cause a scale-up (lowPriority jobs are not counted). */
  inQueue: number;
  /** Jobs being worked on. */
  inProgress: number;
  /** Age (ms) of the oldest queued job that may cause a scale-up; null when there is none. */
  oldestQueuedMs: number | null;
}

export interface ScalingDecision {
  /** Workers wanted, within workersMin..workersMax. */
  desired: number;
  /** Why, in words (goes to the scaling event and the log line). */
  reason: string;
}

/**
 * The number of workers an endpoint should have. Pure: same inputs, same answer.
 *
 * - REQUEST_COUNT: ceil((inQueue + inProgress) / scalerValue).
 * - QUEUE_DELAY: while the oldest queued job has waited more than scalerValue seconds, one more worker for every
 *   queued job that no starting worker will take (current + inQueue - starting); otherwise no more workers than
 *   there are jobs (min(current, inQueue + inProgress)), so an endpoint without work drifts to workersMin.
 * - Scale from zero: with no worker and a job queued, at least one worker (a first job never waits for the
 *   delay threshold).
 * - Always clamped to workersMin..workersMax. Fewer desired than current only makes the loop stop workers that
 *   are idle past idleTimeout and have no job in flight; the function does not pick them.
 */
export function desiredWorkers(input: ScalingInputs): ScalingDecision {
  const inQueue = Math.max(0, input.inQueue);
  const inProgress = Math.max(0, input.inProgress);
  const current = Math.max(0, input.current);
  const starting = Math.min(Math.max(0, input.starting), current);
  const value = Math.max(1, input.scalerValue);
  let demand: number;
  let reason: string;
  if (input.scalerType === 'REQUEST_COUNT') {
    demand = Math.ceil((inQueue + inProgress) / value);
    reason = `REQUEST_COUNT: ceil((${inQueue} queued + ${inProgress} in progress) / ${value}) = ${demand}`;
  } else if (inQueue > 0 && input.oldestQueuedMs !== null && input.oldestQueuedMs > value * 1000) {
    demand = current + Math.max(0, inQueue - starting);
    reason =
      `QUEUE_DELAY: oldest queued job waited ${(input.oldestQueuedMs / 1000).toFixed(1)} s > ${value} s; ` +
      `${inQueue} queued, ${starting} worker(s) starting`;
  } else {
    demand = Math.min(current, inQueue + inProgress);
    reason = `QUEUE_DELAY: oldest wait within ${value} s; ${inQueue} queued + ${inProgress} in progress`;
  }
  if (current === 0 && inQueue > 0 && demand < 1) {
    demand = 1;
    reason = `scale from zero: ${inQueue} job(s) queued and no worker`;
  }
  return withinBounds(demand, reason, input);
}

/** What the scaler looks at for a load-balancing endpoint: the requests the gateways hold for it. */
export interface LbScalingInputs {
  /** Requests per worker the endpoint is sized for. At least 1. */
  scalerValue: number;
  workersMin: number;
  workersMax: number;
  /** Requests being answered by its workers, summed over the gateway replicas. */
  inFlight: number;
  /** Requests waiting for a ready worker (cold starts), summed over the gateway replicas. */
  waiting: number;
}

/**
 * The number of workers a load-balancing endpoint should have: ceil((inFlight + waiting) / scalerValue), clamped
 * to workersMin..workersMax, whatever its scalerType (an LB endpoint scales on request count only). A request
 * waiting for a cold start counts, so a first request to an endpoint at zero workers starts one.
 */
export function desiredLbWorkers(input: LbScalingInputs): ScalingDecision {
  const inFlight = Math.max(0, input.inFlight);
  const waiting = Math.max(0, input.waiting);
  const value = Math.max(1, input.scalerValue);
  const demand = Math.ceil((inFlight + waiting) / value);
  const reason = `LB request count: ceil((${inFlight} in flight + ${waiting} waiting) / ${value}) = ${demand}`;
  return withinBounds(demand, reason, input);
}

/** `demand` clamped to workersMin..workersMax, the reason saying when the bounds decided. */
function withinBounds(
  demand: number,
  reason: string,
  bounds: { workersMin: number; workersMax: number },
): ScalingDecision {
  const min = Math.max(0, bounds.workersMin);
  const max = Math.max(min, bounds.workersMax);
  const desired = Math.min(max, Math.max(min, demand));
  if (desired === demand) return { desired, reason };
  return {
    desired,
    reason: reason + (desired === max ? `; capped at workersMax ${max}` : `; raised to workersMin ${min}`),
  };
}
