import 'reflect-metadata';
import { bootstrapApp } from '@app/platform';
import { AppModule } from './app.module.js';
import { createValidationPipe } from './edge/validation.pipe.js';
import { GatewayConfig } from './gateway.config.js';

await bootstrapApp({
  app: 'gateway',
  configClass: GatewayConfig,
  module: (config) => AppModule.forRoot(config),
  configure: (app) => {
    app.useGlobalPipes(createValidationPipe());
  },
  bodyLimit: (config) => config.MAX_BODY_BYTES,
});
