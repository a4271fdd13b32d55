import type { EndpointThrottle } from '@app/contracts';

/**
 * What the endpoint use cases ask of the control loop's records: why an endpoint's workers are held back now (its
 * latest refused create or resume, none gone through since). The scaling feature answers (ScalingThrottles;
 * persistence.module.ts wires it), so endpoints does not depend on scaling, which reads endpoints.
 */
export abstract class EndpointThrottles {
  /** The endpoint's throttle at `now`, null when nothing holds it back. */
  abstract throttled(endpointId: string, now: Date): Promise<EndpointThrottle | null>;
}
