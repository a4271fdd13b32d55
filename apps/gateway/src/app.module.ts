import { type DynamicModule, Global, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { CommandBus } from '@app/messaging';
import { PlatformModule } from '@app/platform';
import { AccountCommands } from './accounts/account-commands.js';
import { AccountEventsListener } from './accounts/account-events.js';
import { AccountsModule } from './accounts/accounts.module.js';
import { ApiKeysModule } from './api-keys/api-keys.module.js';
import { AuditModule } from './audit/audit.module.js';
import { AuthGuard } from './auth/auth.guard.js';
import { BillingModule } from './billing/billing.module.js';
import { CatalogModule } from './catalog/catalog.module.js';
import { ClustersModule } from './clusters/clusters.module.js';
import { DATA_SOURCE_SPEC } from './data-source.js';
import { ProblemFilter } from './edge/problem.filter.js';
import { GatewayConfig } from './gateway.config.js';
import { EndpointsModule } from './endpoints/endpoints.module.js';
import { GatewayGraphqlModule } from './graphql/graphql.module.js';
import { JobHistoryModule } from './job-history/job-history.module.js';
import { JobsModule } from './jobs/jobs.module.js';
import { LbModule } from './lb/lb.module.js';
import { NetworkVolumesModule } from './network-volumes/network-volumes.module.js';
import { NotOfferedModule } from './not-offered/not-offered.module.js';
import { OpenApiModule } from './openapi/openapi.module.js';
import { RateLimitModule } from './rate-limit/rate-limit.module.js';
import { PodsModule } from './pods/pods.module.js';
import { QuotasModule } from './quotas/quotas.module.js';
import { FleetModule } from './fleet/fleet.module.js';
import { RegistryAuthModule } from './registry-auth/registry-auth.module.js';
import { SshKeysModule } from './ssh-keys/ssh-keys.module.js';
import { TeamsModule } from './teams/teams.module.js';
import { UsersModule } from './users/users.module.js';
import { SsoModule } from './sso/sso.module.js';
import { TemplatesModule } from './templates/templates.module.js';
import { WorkersModule } from './workers/workers.module.js';

/** The accounts feature issues its commands on the bus: recorded, then applied by this app's own consumer. */
@Global()
@Module({
  providers: [{ provide: AccountCommands, useExisting: CommandBus }],
  exports: [AccountCommands],
})
class AccountCommandsModule {}

@Module({})
export class AppModule {
  static forRoot(config: GatewayConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forApp({
          app: 'gateway',
          configClass: GatewayConfig,
          config,
          database: DATA_SOURCE_SPEC,
        }),
        AccountCommandsModule,
        AccountsModule,
        SsoModule,
        RateLimitModule,
        // Before the modules whose parametrised routes share its paths (`/v2/registries/:registryId`).
        NotOfferedModule,
        RegistryAuthModule,
        ClustersModule,
        CatalogModule,
        NetworkVolumesModule,
        BillingModule,
        SshKeysModule,
        ApiKeysModule,
        TeamsModule,
        UsersModule,
        QuotasModule,
        FleetModule,
        AuditModule,
        PodsModule,
        EndpointsModule,
        JobHistoryModule,
        TemplatesModule,
        GatewayGraphqlModule,
        WorkersModule,
        JobsModule,
        LbModule,
        OpenApiModule.forRoot(config.OPENAPI_DIR),
      ],
      providers: [
        { provide: APP_FILTER, useClass: ProblemFilter },
        { provide: APP_GUARD, useClass: AuthGuard },
        AccountEventsListener,
      ],
    };
  }
}
