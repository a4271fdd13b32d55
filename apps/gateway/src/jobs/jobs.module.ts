import { Module } from '@nestjs/common';
import { LogsModule } from '../logs/logs.module.js';
import { loadConfigOrExit } from '@app/platform';
import { AccountsModule } from '../accounts/accounts.module.js';
import { RateLimitModule } from '../rate-limit/rate-limit.module.js';
import { EndpointAccess } from './endpoint-access.js';
import { GatewayPayloads } from './gateway-payloads.js';
import { JobSignals } from './job-signals.js';
import { JobViews } from './job-views.js';
import { JobsEdgeConfig } from './jobs-edge.config.js';
import { JobsController } from './jobs.controller.js';
import { JobsService } from './jobs.service.js';
import { SubmitBatcher } from './submit-batcher.js';
import { WebhookSecretsController } from './webhook-secrets.controller.js';
import { WebhookSecretsService } from './webhook-secrets.service.js';

/**
 * The queue routes (`/v2/{endpoint_id}/run` …): thin; the jobs are the queue broker's. The worker routes
 * (`WorkersModule`) share its endpoint access, payload store, job signals and limits, exported here.
 */
@Module({
  imports: [AccountsModule, RateLimitModule, LogsModule],
  controllers: [JobsController, WebhookSecretsController],
  providers: [
    { provide: JobsEdgeConfig, useFactory: () => loadConfigOrExit(JobsEdgeConfig) },
    EndpointAccess,
    GatewayPayloads,
    JobSignals,
    JobViews,
    JobsService,
    SubmitBatcher,
    WebhookSecretsService,
  ],
  exports: [EndpointAccess, GatewayPayloads, JobSignals, JobsEdgeConfig],
})
export class JobsModule {}
