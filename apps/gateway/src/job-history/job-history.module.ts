import { Module } from '@nestjs/common';
import { JobsModule } from '../jobs/jobs.module.js';
import { LogsModule } from '../logs/logs.module.js';
import { JobHistoryController } from './job-history.controller.js';
import { JobHistoryService } from './job-history.service.js';

/** An endpoint's job history (docs/adr/0042-job-history.md): the queue broker's jobs, with their workers' logs. */
@Module({
  imports: [JobsModule, LogsModule],
  controllers: [JobHistoryController],
  providers: [JobHistoryService],
})
export class JobHistoryModule {}
