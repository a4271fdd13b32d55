export * from './public.decorator.js';
export * from './health.controller.js';
export * from './correlation.hook.js';
export * from './pino-nest-logger.js';
export * from './platform.module.js';
export * from './bootstrap.js';
export * from './metrics-server.js';
export * from './secrets/secret-box.js';
