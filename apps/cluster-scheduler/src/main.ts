import 'reflect-metadata';
import { bootstrapApp } from '@app/platform';
import { AppModule } from './app.module.js';
import { ClusterSchedulerConfig } from './cluster-scheduler.config.js';

await bootstrapApp({
  app: 'cluster-scheduler',
  configClass: ClusterSchedulerConfig,
  module: (config) => AppModule.forRoot(config),
});
