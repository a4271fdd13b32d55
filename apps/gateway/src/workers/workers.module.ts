import { Module } from '@nestjs/common';
import { JobsModule } from '../jobs/jobs.module.js';
import { DoneBatcher } from './done-batcher.js';
import { EmptyQueues } from './empty-queues.js';
import { WorkersController } from './workers.controller.js';
import { WorkersService } from './workers.service.js';

/**
 * The worker routes (`/v2/{endpoint_id}/job-take/{worker_id}` …): thin; the workers are the queue broker's. Their
 * static segments (`job-take`, `ping`) never compete with the job routes' (`status`, `stream`), so the two
 * modules' order does not matter.
 */
@Module({
  imports: [JobsModule],
  controllers: [WorkersController],
  providers: [DoneBatcher, EmptyQueues, WorkersService],
})
export class WorkersModule {}
