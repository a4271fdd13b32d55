import 'reflect-metadata';
import { bootstrapApp } from '@app/platform';
import { AppModule } from './app.module.js';
import { QueueBrokerConfig } from './queue-broker.config.js';

await bootstrapApp({
  app: 'queue-broker',
  configClass: QueueBrokerConfig,
  module: (config) => AppModule.forRoot(config),
});
