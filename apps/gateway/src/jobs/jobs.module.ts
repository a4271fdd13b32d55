import { Module } from '@nestjs/common';
import { loadConfigOrExit } from '@app/platform';
import { EmptyQueues } from '../workers/empty-queues.js';
import { WorkersController } from '../workers/workers.controller.js';
import { WorkersService } from '../workers/workers.service.js';
import { EndpointAccess } from './endpoint-access.js';
import { GatewayPayloads } from './gateway-payloads.js';
import { JobSignals } from './job-signals.js';
import { JobViews } from './job-views.js';
import { JobsEdgeConfig } from './jobs-edge.config.js';
import { JobsController } from './jobs.controller.js';
import { JobsService } from './jobs.service.js';
import { WebhookSecretsController } from './webhook-secrets.controller.js';
import { WebhookSecretsService } from './webhook-secrets.service.js';

/**
 * The queue routes (`/v2/{endpoint_id}/run` …) and the worker routes (`job-take` …): both are thin; the jobs and
 * the workers are the queue broker's. The worker controller is registered first: its static segments
 * (`job-take`, `ping`) never compete with the job routes' (`status`, `stream`).
 */
@Module({
  controllers: [WorkersController, JobsController, WebhookSecretsController],
  providers: [
    { provide: JobsEdgeConfig, useFactory: () => loadConfigOrExit(JobsEdgeConfig) },
    EmptyQueues,
    EndpointAccess,
    GatewayPayloads,
    JobSignals,
    JobViews,
    JobsService,
    WorkersService,
    WebhookSecretsService,
  ],
  exports: [EndpointAccess],
})
export class JobsModule {}
