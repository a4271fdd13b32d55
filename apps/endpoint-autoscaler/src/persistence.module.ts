import { Module } from '@nestjs/common';
import { EndpointThrottles } from './endpoints/endpoint-throttles.js';
import { EndpointWaitReasons } from './endpoints/endpoint-wait-reasons.js';
import { EndpointsRepository } from './endpoints/endpoints.repository.js';
import { EndpointWaitReasonsRepository } from './scaling/endpoint-wait-reasons.repository.js';
import { ScalingEventsRepository } from './scaling/scaling-events.repository.js';
import { ScalingThrottles } from './scaling/scaling-throttles.js';
import { DrainingPodsRepository } from './workers/draining-pods.repository.js';
import { WorkersRepository } from './workers/workers.repository.js';

/**
 * endpoint-autoscaler's repositories, shared by the endpoint use cases and the control loop; and why an endpoint
 * waits, which the endpoint use cases ask through EndpointThrottles and the control loop's records answer.
 */
@Module({
  providers: [
    EndpointsRepository,
    WorkersRepository,
    DrainingPodsRepository,
    ScalingEventsRepository,
    { provide: EndpointThrottles, useClass: ScalingThrottles },
    EndpointWaitReasonsRepository,
    { provide: EndpointWaitReasons, useExisting: EndpointWaitReasonsRepository },
  ],
  exports: [
    EndpointsRepository,
    WorkersRepository,
    ScalingEventsRepository,
    EndpointThrottles,
    EndpointWaitReasonsRepository,
    EndpointWaitReasons,
    DrainingPodsRepository,
  ],
})
export class PersistenceModule {}
