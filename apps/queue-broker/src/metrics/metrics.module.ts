import { Module } from '@nestjs/common';
import { EndpointMetricsHandler } from './endpoint-metrics/endpoint-metrics.handler.js';
import { RollupCache } from './endpoint-metrics/rollup-cache.js';
import { JobEventsFolder } from './fold-job-events/job-events.folder.js';
import { FollowWorkerPodsHandler } from './follow-worker-pods/follow-worker-pods.handler.js';
import { MetricsLeader } from './metrics-leader.js';
import { MetricsRepository } from './metrics.repository.js';
import { LbRollupsRepository } from './record-lb-requests/lb-rollups.repository.js';
import { RecordLbRequestsHandler } from './record-lb-requests/record-lb-requests.handler.js';
import { GaugeSampler } from './sample-gauges/gauge.sampler.js';
import { WorkerStartsRepository } from './worker-starts.repository.js';

/** Endpoint metrics (docs/adr/0022-endpoint-metrics.md): rollups kept by the leader, read by `job.qry.metrics`. */
@Module({
  providers: [
    MetricsRepository,
    JobEventsFolder,
    GaugeSampler,
    MetricsLeader,
    RollupCache,
    EndpointMetricsHandler,
    WorkerStartsRepository,
    FollowWorkerPodsHandler,
    LbRollupsRepository,
    RecordLbRequestsHandler,
  ],
  exports: [MetricsRepository, WorkerStartsRepository],
})
export class MetricsModule {}
