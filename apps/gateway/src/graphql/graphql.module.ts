import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import { Module } from '@nestjs/common';
import { GraphQLModule } from '@nestjs/graphql';
import { EndpointsModule } from '../endpoints/endpoints.module.js';
import { GatewayConfig } from '../gateway.config.js';
import { EndpointsResolver } from './endpoints.resolver.js';

/**
 * `POST /graphql` (code-first, Apollo on Fastify). Errors: `errors[].message` + `extensions.code` (the table in
 * edge/graphql-errors.ts); HTTP 401/403 for a missing, bad or insufficient key, 200 for every other execution
 * error; stack traces only with NODE_ENV=development.
 */
@Module({
  imports: [
    GraphQLModule.forRootAsync<ApolloDriverConfig>({
      driver: ApolloDriver,
      inject: [GatewayConfig],
      useFactory: (config: GatewayConfig): ApolloDriverConfig => ({
        path: '/graphql',
        autoSchemaFile: true,
        sortSchema: true,
        graphiql: false,
        introspection: config.NODE_ENV !== 'production',
        includeStacktraceInErrorResponses: config.NODE_ENV === 'development',
        // Keep 401/403 set by an error's extensions.http (the driver would reset them to 200).
        preserveHttpStatusForExecutionErrors: false,
        autoTransformHttpErrors: false,
      }),
    }),
    EndpointsModule,
  ],
  providers: [EndpointsResolver],
})
export class GatewayGraphqlModule {}
