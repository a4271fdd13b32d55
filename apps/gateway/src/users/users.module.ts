import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module.js';
import { UsersController } from './users.controller.js';
import { UsersService } from './users.service.js';

@Module({ imports: [AccountsModule], controllers: [UsersController], providers: [UsersService] })
export class UsersModule {}
