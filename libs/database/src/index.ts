export * from './entities/processed-command.entity.js';
export * from './entities/outbox-message.entity.js';
export * from './data-source.js';
export * from './database.module.js';
export * from './database-errors.js';
export * from './prepared-query.js';
export * from './entity-statements.js';
export * from './advisory-leadership.js';
