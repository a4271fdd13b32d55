import { Module } from '@nestjs/common';
import { PersistenceModule } from '../persistence.module.js';
import { DrainWorkersHandler } from './drain-workers/drain-workers.handler.js';

/** The workers' use cases that are commands: the marks of a draining host's pods. */
@Module({
  imports: [PersistenceModule],
  providers: [DrainWorkersHandler],
})
export class WorkersModule {}
