import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { PlatformModule } from '@app/platform';
import { AccountsModule } from './accounts/accounts.module.js';
import { AuthGuard } from './auth/auth.guard.js';
import { DATA_SOURCE_SPEC } from './data-source.js';
import { ProblemFilter } from './edge/problem.filter.js';
import { GatewayConfig } from './gateway.config.js';
import { RegistryAuthModule } from './registry-auth/registry-auth.module.js';

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
        AccountsModule,
        RegistryAuthModule,
      ],
      providers: [
        { provide: APP_FILTER, useClass: ProblemFilter },
        { provide: APP_GUARD, useClass: AuthGuard },
      ],
    };
  }
}
