import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { GraphQLModule } from '@nestjs/graphql';
import { bootstrapApp } from '@app/platform';
import { AppModule } from './app.module.js';
import { answerFrameworkErrors } from './edge/problem.filter.js';
import { MAX_PATH_PARAM_LENGTH, RequestShapePipe } from './edge/request-shape.pipe.js';
import { createValidationPipe } from './edge/validation.pipe.js';
import { GatewayConfig } from './gateway.config.js';
import { configureJobRoutes } from './edge/job-routes.setup.js';
import { configureJobReadRoutes } from './jobs/job-read-routes.setup.js';
import { configureConsoleRoutes } from './console/console-routes.setup.js';
import { configureDocsRoutes } from './docs/docs-routes.setup.js';
import type { LazyApolloDriver } from './graphql/lazy-apollo.driver.js';
import { configureLbRoutes, lbHostRewriter } from './lb/lb-routes.setup.js';
import { LbUpgrade } from './lb/lb-upgrade.js';

await bootstrapApp({
  app: 'gateway',
  configClass: GatewayConfig,
  module: (config) => AppModule.forRoot(config),
  fastifyOptions: (config) => ({
    routerOptions: { maxParamLength: MAX_PATH_PARAM_LENGTH },
    ...(config.LB_DOMAIN ? { rewriteUrl: lbHostRewriter(config.LB_DOMAIN) } : {}),
    frameworkErrors: answerFrameworkErrors(MAX_PATH_PARAM_LENGTH, new Logger('edge')),
  }),
  configure: (app, config) => {
    app.useGlobalPipes(new RequestShapePipe(), createValidationPipe());
    configureJobRoutes(app, config.MAX_BODY_BYTES);
    configureJobReadRoutes(app);
    configureLbRoutes(app);
    configureConsoleRoutes(app, config.CONSOLE_DIR);
    const graphql = app.get(GraphQLModule<LazyApolloDriver>, { strict: false });
    configureDocsRoutes(app, {
      openApiDir: config.OPENAPI_DIR,
      graphqlSdl: () => graphql.graphQlAdapter.schemaSdl(),
    });
    // WebSockets to LB endpoints: Fastify routes no upgrades, so they are taken from the server's event.
    app.get(LbUpgrade).attach(app.getHttpServer(), config.LB_DOMAIN);
  },
  bodyLimit: (config) => config.MAX_BODY_BYTES,
});
