import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module.js';
import { NetworkVolumesModule } from '../network-volumes/network-volumes.module.js';
import { EndpointsService } from './endpoints.service.js';
import { ServerlessV2Controller } from './serverless-v2.controller.js';

@Module({
  imports: [AccountsModule, NetworkVolumesModule],
  controllers: [ServerlessV2Controller],
  providers: [EndpointsService],
  exports: [EndpointsService],
})
export class EndpointsModule {}
