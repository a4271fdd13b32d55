import { Module } from '@nestjs/common';
import { GatewayConfig } from '../gateway.config.js';
import { AccountEvents } from './account-events.js';
import { ACCOUNT_HANDLERS } from './account-handlers.js';
import { AccountsService } from './accounts.service.js';
import { ApiKeysRepository } from './api-keys.repository.js';
import { PrincipalCache } from './principal-cache.js';
import { TeamsRepository } from './teams.repository.js';
import { UsersRepository } from './users.repository.js';

const HANDLERS = Object.values(ACCOUNT_HANDLERS);

/**
 * Users, teams and keys, and the handlers of their `account.cmd.*` commands. Needs `GatewayConfig` (global) and an
 * `AccountCommands` (the gateway's command bus, or the keys CLI's local application); `NatsClient` when there is one
 * (the gateway's bus, the keys CLI's own connection) to tell the replicas of changes. The gateway adds
 * `AccountEventsListener` to hear them.
 */
@Module({
  providers: [
    UsersRepository,
    ApiKeysRepository,
    TeamsRepository,
    AccountsService,
    AccountEvents,
    ...HANDLERS,
    {
      provide: PrincipalCache,
      inject: [GatewayConfig],
      useFactory: (config: GatewayConfig) => new PrincipalCache(config.AUTH_CACHE_TTL_MS),
    },
  ],
  exports: [AccountsService, PrincipalCache, TeamsRepository, UsersRepository, ...HANDLERS],
})
export class AccountsModule {}
