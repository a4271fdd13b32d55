import 'reflect-metadata';
import { bootstrapApp } from '@app/platform';
import { AppModule } from './app.module.js';
import { createValidationPipe } from './edge/validation.pipe.js';
import { GatewayConfig } from './gateway.config.js';
import { configureJobRoutes } from './jobs/job-routes.setup.js';

await bootstrapApp({
  app: 'gateway',
  configClass: GatewayConfig,
  module: (config) => AppModule.forRoot(config),
  configure: (app, config) => {
    app.useGlobalPipes(createValidationPipe());
    configureJobRoutes(app, config.MAX_BODY_BYTES);
  },
  bodyLimit: (config) => config.MAX_BODY_BYTES,
});
