import { Module } from '@nestjs/common';
import { JobsModule } from '../jobs/jobs.module.js';
import { LbModule } from '../lb/lb.module.js';
import { LogsModule } from '../logs/logs.module.js';
import { AccountsModule } from '../accounts/accounts.module.js';
import { CatalogModule } from '../catalog/catalog.module.js';
import { NetworkVolumesModule } from '../network-volumes/network-volumes.module.js';
import { PodsModule } from '../pods/pods.module.js';
import { TemplatesModule } from '../templates/templates.module.js';
import { EndpointFromImageService } from './endpoint-from-image.service.js';
import { EndpointsService } from './endpoints.service.js';
import { EndpointsV1Controller } from './endpoints-v1.controller.js';
import { EndpointsV1Service } from './endpoints-v1.service.js';
import { ServerlessV2Controller } from './serverless-v2.controller.js';

@Module({
  imports: [
    AccountsModule,
    NetworkVolumesModule,
    CatalogModule,
    TemplatesModule,
    PodsModule,
    LogsModule,
    JobsModule,
    LbModule,
  ],
  controllers: [ServerlessV2Controller, EndpointsV1Controller],
  providers: [EndpointsService, EndpointsV1Service, EndpointFromImageService],
  exports: [EndpointsService],
})
export class EndpointsModule {}
