import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module.js';
import { EndpointsService } from './endpoints.service.js';

@Module({ imports: [AccountsModule], providers: [EndpointsService], exports: [EndpointsService] })
export class EndpointsModule {}
