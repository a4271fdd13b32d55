import 'reflect-metadata';
export * from './base.config.js';
export * from './load-config.js';
export * from './config.module.js';
export * from './config-validators.js';
