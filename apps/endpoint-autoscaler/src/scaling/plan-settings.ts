import type { EndpointAutoscalerConfig } from '../endpoint-autoscaler.config.js';
import { refusalWindowMs, type PlanSettings } from './scaling-plan.js';

/**
 * How long an endpoint whose owner reached their monthly spend limit creates and resumes no worker: the refusal
 * (SPEND_LIMIT_REACHED) is recorded as a failed scaling event, and asking again every tick would only record more.
 */
const SPEND_LIMIT_PAUSE_MS = 30_000;

/** The plan's timings, from the app's settings. */
export function planSettings(config: EndpointAutoscalerConfig): PlanSettings {
  return {
    reissueAfterMs: config.AUTOSCALER_REISSUE_AFTER_MS,
    failureBackoffMs: config.AUTOSCALER_FAILURE_BACKOFF_MS,
    spendLimitPauseMs: SPEND_LIMIT_PAUSE_MS,
  };
}

/**
 * How far back a refusal still says why an endpoint waits: twice the longest back-off, so the refusal of one attempt
 * is still shown when the next attempt, a back-off later, is refused in its turn.
 */
export function throttleWindowMs(settings: PlanSettings): number {
  return 2 * refusalWindowMs(settings);
}
