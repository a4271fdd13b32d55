import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module.js';
import { GatewayConfig } from '../gateway.config.js';
import { ConsoleSessions } from './console-sessions.service.js';
import { ConsoleSessionsRepository } from './console-sessions.repository.js';
import { OidcClient } from './oidc-client.js';
import { SessionCache } from './session-cache.js';
import { SessionEvents } from './session-events.js';
import { SsoController } from './sso.controller.js';
import { SsoDirectory } from './sso-directory.js';
import { SsoDirectoryRepository } from './sso-directory.repository.js';
import { SsoProvisioning } from './sso-provisioning.js';
import { SsoSignIn } from './sso-sign-in.service.js';

/**
 * Single sign-on for the web console: the OpenID sign-in, the provisioning of users and team memberships, and the
 * server-side sessions the edge's AuthGuard admits (ConsoleSessions, exported for it).
 */
@Module({
  imports: [AccountsModule],
  controllers: [SsoController],
  providers: [
    ConsoleSessionsRepository,
    OidcClient,
    SsoProvisioning,
    SsoSignIn,
    ConsoleSessions,
    SessionEvents,
    { provide: SsoDirectory, useClass: SsoDirectoryRepository },
    {
      provide: SessionCache,
      inject: [GatewayConfig],
      useFactory: (config: GatewayConfig) => new SessionCache(config.SSO_SESSION_CACHE_MS),
    },
  ],
  exports: [ConsoleSessions],
})
export class SsoModule {}
