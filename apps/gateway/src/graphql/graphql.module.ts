import type { ApolloDriverConfig } from '@nestjs/apollo';
import { Module } from '@nestjs/common';
import { GraphQLModule } from '@nestjs/graphql';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { EndpointsModule } from '../endpoints/endpoints.module.js';
import { CatalogModule } from '../catalog/catalog.module.js';
import { GatewayConfig } from '../gateway.config.js';
import { PodsModule } from '../pods/pods.module.js';
import { NetworkVolumesModule } from '../network-volumes/network-volumes.module.js';
import { RegistryAuthModule } from '../registry-auth/registry-auth.module.js';
import { SshKeysModule } from '../ssh-keys/ssh-keys.module.js';
import { TemplatesModule } from '../templates/templates.module.js';
import type { GatewayGraphqlContext } from '../edge/graphql-context.js';
import { graphqlCostPlugin } from './graphql-cost.plugin.js';
import { formatGraphqlError, limitRules } from './graphql-limits.js';
import { LazyApolloDriver } from './lazy-apollo.driver.js';
import { notOfferedPlugin } from './not-offered.plugin.js';
import { AccountResolver } from './account.resolver.js';
import { EndpointsResolver } from './endpoints.resolver.js';
import { GpuTypesResolver } from './gpu-types.resolver.js';
import { PodMachineResolver, PodsResolver } from './pods.resolver.js';
import { NetworkVolumesResolver } from './network-volumes.resolver.js';
import { RegistryAuthResolver } from './registry-auth.resolver.js';
import { TemplatesResolver } from './templates.resolver.js';

/**
 * `POST /graphql` (code-first, Apollo on Fastify). Errors: `errors[].message` + `extensions.code` (the table in
 * edge/graphql-errors.ts); HTTP 401/403 for a missing, bad or insufficient key, 429 past the rate limit, 400 for
 * a document past a limit (graphql-limits.ts), 200 for every other execution error. Never a stack trace, in any
 * NODE_ENV; introspection and the GraphiQL page only with GRAPHQL_INTROSPECTION=true (docs/adr/0014).
 */
@Module({
  imports: [
    GraphQLModule.forRootAsync<ApolloDriverConfig>({
      // The schema and the Apollo server are built after the start, on first use (lazy-apollo.driver.ts).
      driver: LazyApolloDriver,
      inject: [GatewayConfig],
      useFactory: (config: GatewayConfig): ApolloDriverConfig => ({
        path: '/graphql',
        autoSchemaFile: true,
        sortSchema: true,
        graphiql: config.GRAPHQL_INTROSPECTION,
        introspection: config.GRAPHQL_INTROSPECTION,
        includeStacktraceInErrorResponses: false,
        parseOptions: { maxTokens: config.GRAPHQL_MAX_TOKENS },
        validationRules: limitRules({
          maxAliases: config.GRAPHQL_MAX_ALIASES,
          maxDepth: config.GRAPHQL_MAX_DEPTH,
          maxDirectives: config.GRAPHQL_MAX_DIRECTIVES,
          maxCost: config.GRAPHQL_MAX_COST,
        }),
        plugins: [graphqlCostPlugin(), notOfferedPlugin()],
        // Without introspection, no "Did you mean ...?" either: it would spell out the schema field by field.
        hideSchemaDetailsFromClientErrors: !config.GRAPHQL_INTROSPECTION,
        formatError: formatGraphqlError,
        context: (req: FastifyRequest, reply: FastifyReply): GatewayGraphqlContext => ({ req, reply }),
        // Keep 401/403/429 set by an error's extensions.http (the driver would reset them to 200).
        preserveHttpStatusForExecutionErrors: false,
        autoTransformHttpErrors: false,
      }),
    }),
    EndpointsModule,
    NetworkVolumesModule,
    RegistryAuthModule,
    TemplatesModule,
    SshKeysModule,
    PodsModule,
    CatalogModule,
  ],
  providers: [
    AccountResolver,
    EndpointsResolver,
    NetworkVolumesResolver,
    RegistryAuthResolver,
    TemplatesResolver,
    PodsResolver,
    PodMachineResolver,
    GpuTypesResolver,
  ],
})
export class GatewayGraphqlModule {}
