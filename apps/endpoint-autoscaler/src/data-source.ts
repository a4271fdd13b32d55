import { MESSAGING_ENTITIES, type AppDataSourceSpec } from '@app/database';
import { EndpointEntity } from './endpoints/endpoint.entity.js';
import { MIGRATIONS } from './migrations/index.js';
import { EndpointWaitReasonEntity } from './scaling/endpoint-wait-reason.entity.js';
import { ScalingEventEntity } from './scaling/scaling-event.entity.js';
import { DrainingPodEntity } from './workers/draining-pod.entity.js';
import { WorkerEntity } from './workers/worker.entity.js';

/** endpoint-autoscaler owns the `endpoint_autoscaler` schema; nobody else writes it. */
export const DATA_SOURCE_SPEC: AppDataSourceSpec = {
  schema: 'endpoint_autoscaler',
  entities: [
    ...MESSAGING_ENTITIES,
    EndpointEntity,
    WorkerEntity,
    ScalingEventEntity,
    EndpointWaitReasonEntity,
    DrainingPodEntity,
  ],
  migrations: MIGRATIONS,
};
