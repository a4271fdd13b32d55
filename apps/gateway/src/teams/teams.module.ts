import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module.js';
import { TeamsController } from './teams.controller.js';
import { TeamsService } from './teams.service.js';

@Module({ imports: [AccountsModule], controllers: [TeamsController], providers: [TeamsService] })
export class TeamsModule {}
