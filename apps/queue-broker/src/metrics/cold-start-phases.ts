import type { ColdStartPhase } from '@app/contracts';

/** What was recorded of one worker's start (worker-start.entity.ts) and its first job request. */
export interface WorkerStartTimes {
  decidedAt: Date | null;
  placedAt: Date | null;
  startingAt: Date | null;
  runningAt: Date | null;
  firstPollAt: Date;
}

/** The phases a start's times give (ms), each only when both its ends were recorded. */
export type ColdStartPhaseTimes = Partial<Record<ColdStartPhase, number>>;

/**
 * A cold start's phases (COLD_START_PHASES in @app/contracts): placement (decided → placed), runtime start (placed →
 * RUNNING) split into image pull (placed → STARTING) and container start (STARTING → RUNNING), worker ready (RUNNING
 * → first job request). The ends come from three apps' clocks (the autoscaler's for decided and placed,
 * pod-lifecycle's commands for the statuses, the edge's for the first request): a phase that reads negative (a
 * runtime that reported STARTING before the autoscaler had its create's answer) is counted as 0.
 */
export function coldStartPhases(times: WorkerStartTimes): ColdStartPhaseTimes {
  const { decidedAt, placedAt, startingAt, runningAt, firstPollAt } = times;
  const phases: ColdStartPhaseTimes = {};
  const between = (phase: ColdStartPhase, from: Date | null, to: Date | null) => {
    if (from && to) phases[phase] = Math.max(0, to.getTime() - from.getTime());
  };
  between('placement', decidedAt, placedAt);
  between('runtimeStart', placedAt, runningAt);
  between('imagePull', placedAt, startingAt);
  between('containerStart', startingAt, runningAt);
  between('workerReady', runningAt, firstPollAt);
  return phases;
}
