import { Module } from '@nestjs/common';
import { AccountsService } from './accounts.service.js';
import { ApiKeysRepository } from './api-keys.repository.js';
import { UsersRepository } from './users.repository.js';

@Module({
  providers: [UsersRepository, ApiKeysRepository, AccountsService],
  exports: [AccountsService],
})
export class AccountsModule {}
