import { Module } from '@nestjs/common';
import { SshKeysRepository } from '../accounts/ssh-keys.repository.js';
import { AccountSshKeysController } from './account-ssh-keys.controller.js';
import { SshKeysController } from './ssh-keys.controller.js';
import { SshKeysService } from './ssh-keys.service.js';

@Module({
  controllers: [SshKeysController, AccountSshKeysController],
  providers: [SshKeysRepository, SshKeysService],
  exports: [SshKeysService],
})
export class SshKeysModule {}
