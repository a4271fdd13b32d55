import { Module } from '@nestjs/common';
import { GatewayConfig } from '../gateway.config.js';
import { AccountEvents } from './account-events.js';
import { AccountsService } from './accounts.service.js';
import { ApiKeysRepository } from './api-keys.repository.js';
import { PrincipalCache } from './principal-cache.js';
import { UsersRepository } from './users.repository.js';

/**
 * Users and keys. Needs `GatewayConfig` (global); `NatsClient` when there is one (the gateway's bus, the keys
 * CLI's own connection) to tell the replicas of changes. The gateway adds `AccountEventsListener` to hear them.
 */
@Module({
  providers: [
    UsersRepository,
    ApiKeysRepository,
    AccountsService,
    AccountEvents,
    {
      provide: PrincipalCache,
      inject: [GatewayConfig],
      useFactory: (config: GatewayConfig) => new PrincipalCache(config.AUTH_CACHE_TTL_MS),
    },
  ],
  exports: [AccountsService, PrincipalCache],
})
export class AccountsModule {}
