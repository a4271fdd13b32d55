import 'reflect-metadata';
import { bootstrapApp } from '@app/platform';
import { AppModule } from './app.module.js';
import { PodLifecycleConfig } from './pod-lifecycle.config.js';

await bootstrapApp({
  app: 'pod-lifecycle',
  configClass: PodLifecycleConfig,
  module: (config) => AppModule.forRoot(config),
});
