import type { WaitReason } from '@app/contracts';

/**
 * What the endpoint use cases ask of the control loop's records: why the endpoint's jobs wait now, as the loop last
 * judged it. The scaling feature answers (EndpointWaitReasonsRepository; persistence.module.ts wires it), so
 * endpoints does not depend on scaling, which reads endpoints.
 */
export abstract class EndpointWaitReasons {
  /** The endpoint's wait reason, null when nothing holds its jobs. */
  abstract current(endpointId: string): Promise<WaitReason | null>;
}
