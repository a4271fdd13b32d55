import { Module } from '@nestjs/common';
import { EndpointsRepository } from './endpoints/endpoints.repository.js';
import { ScalingEventsRepository } from './scaling/scaling-events.repository.js';
import { WorkersRepository } from './workers/workers.repository.js';

/** endpoint-autoscaler's repositories, shared by the endpoint use cases and the control loop. */
@Module({
  providers: [EndpointsRepository, WorkersRepository, ScalingEventsRepository],
  exports: [EndpointsRepository, WorkersRepository, ScalingEventsRepository],
})
export class PersistenceModule {}
