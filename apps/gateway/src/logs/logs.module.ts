import { Module } from '@nestjs/common';
import { PodLogReader } from './pod-log-reader.js';
import { PodLogTail } from './pod-log-tail.js';
import { PodLogsService } from './pod-logs.service.js';

/** Serving containers' log lines (docs/adr/0020); the routes live with the pods and the endpoints. */
@Module({
  providers: [PodLogReader, PodLogsService, PodLogTail],
  exports: [PodLogsService, PodLogTail, PodLogReader],
})
export class LogsModule {}
