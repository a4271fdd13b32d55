import { Module } from '@nestjs/common';
import { NetworkVolumesV2Controller } from './network-volumes-v2.controller.js';
import { NetworkVolumesController } from './network-volumes.controller.js';
import { NetworkVolumesService } from './network-volumes.service.js';

@Module({
  controllers: [NetworkVolumesController, NetworkVolumesV2Controller],
  providers: [NetworkVolumesService],
  exports: [NetworkVolumesService],
})
export class NetworkVolumesModule {}
