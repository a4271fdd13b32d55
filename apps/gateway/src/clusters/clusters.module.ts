import { Module } from '@nestjs/common';
import { SshKeysModule } from '../ssh-keys/ssh-keys.module.js';
import { ClustersController } from './clusters.controller.js';
import { ClustersService } from './clusters.service.js';

@Module({ imports: [SshKeysModule], controllers: [ClustersController], providers: [ClustersService] })
export class ClustersModule {}
