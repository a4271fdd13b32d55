import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module.js';
import { ApiKeysController } from './api-keys.controller.js';

@Module({ imports: [AccountsModule], controllers: [ApiKeysController] })
export class ApiKeysModule {}
