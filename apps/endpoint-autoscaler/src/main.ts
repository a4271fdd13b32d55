import 'reflect-metadata';
import { bootstrapApp } from '@app/platform';
import { AppModule } from './app.module.js';
import { EndpointAutoscalerConfig } from './endpoint-autoscaler.config.js';

await bootstrapApp({
  app: 'endpoint-autoscaler',
  configClass: EndpointAutoscalerConfig,
  module: (config) => AppModule.forRoot(config),
});
