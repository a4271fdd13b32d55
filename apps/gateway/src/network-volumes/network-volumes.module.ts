import { Module } from '@nestjs/common';
import { NetworkVolumesController } from './network-volumes.controller.js';
import { NetworkVolumesService } from './network-volumes.service.js';

@Module({ controllers: [NetworkVolumesController], providers: [NetworkVolumesService] })
export class NetworkVolumesModule {}
