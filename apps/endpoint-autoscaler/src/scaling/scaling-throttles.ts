import { Injectable } from '@nestjs/common';
import type { EndpointThrottle } from '@app/contracts';
import { EndpointAutoscalerConfig } from '../endpoint-autoscaler.config.js';
import { EndpointThrottles } from '../endpoints/endpoint-throttles.js';
import { planSettings, throttleWindowMs } from './plan-settings.js';
import { ScalingEventsRepository } from './scaling-events.repository.js';

/**
 * Why an endpoint waits, from the failed scaling events the applier records: its latest refused create or resume
 * within twice the back-off window (the loop asks again once a back-off is over, so a refusal that still holds is
 * always that recent), none decided since. `since` is carried from refusal to refusal (the applier writes it into
 * each one's inputs), so it says when the endpoint began waiting, however long ago, for the price of one row read.
 */
@Injectable()
export class ScalingThrottles extends EndpointThrottles {
  private readonly windowMs: number;

  constructor(
    private readonly events: ScalingEventsRepository,
    config: EndpointAutoscalerConfig,
  ) {
    super();
    this.windowMs = throttleWindowMs(planSettings(config));
  }

  /**
   * At `now`: the refusals recorded before it, and the creates and resumes decided before it (the applier asks
   * with its tick's time, so the attempts that tick decided, dated `now`, are not counted).
   */
  async throttled(endpointId: string, now: Date): Promise<EndpointThrottle | null> {
    const since = new Date(now.getTime() - this.windowMs);
    const refusal = await this.events.latestUnansweredRefusal(endpointId, since, now);
    if (!refusal) return null;
    return {
      code: refusal.code ?? 'UNKNOWN',
      message: refusal.reason,
      since: refusal.waitingSince ?? refusal.at.toISOString(),
    };
  }
}
