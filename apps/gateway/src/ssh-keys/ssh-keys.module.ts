import { Module } from '@nestjs/common';
import { SshKeysRepository } from '../accounts/ssh-keys.repository.js';
import { SshKeysController } from './ssh-keys.controller.js';
import { SshKeysService } from './ssh-keys.service.js';

@Module({
  controllers: [SshKeysController],
  providers: [SshKeysRepository, SshKeysService],
  exports: [SshKeysService],
})
export class SshKeysModule {}
