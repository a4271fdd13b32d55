import { Module } from '@nestjs/common';
import { LogsModule } from '../logs/logs.module.js';
import { CatalogModule } from '../catalog/catalog.module.js';
import { NetworkVolumesModule } from '../network-volumes/network-volumes.module.js';
import { SshKeysModule } from '../ssh-keys/ssh-keys.module.js';
import { PodsV2Controller } from './pods-v2.controller.js';
import { PodsController } from './pods.controller.js';
import { PodsService } from './pods.service.js';

@Module({
  imports: [SshKeysModule, CatalogModule, NetworkVolumesModule, LogsModule],
  controllers: [PodsController, PodsV2Controller],
  providers: [PodsService],
  exports: [PodsService],
})
export class PodsModule {}
