import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Subjects, type GetJobQuery, type JobView, type Packed } from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import { PayloadStore } from '../../payloads/payload-store.js';
import { toJobView, visibleJob } from '../job.rules.js';
import { JobsRepository } from '../jobs.repository.js';

@Injectable()
export class GetJobHandler {
  constructor(
    private readonly jobs: JobsRepository,
    private readonly payloads: PayloadStore,
  ) {}

  @QueryHandler(Subjects.job.get)
  async handle(ctx: QueryContext<GetJobQuery>): Promise<Packed<JobView>> {
    const { endpointId, jobId } = ctx.payload;
    const now = new Date();
    const job = visibleJob(await this.jobs.findById(jobId), endpointId, jobId, now);
    // A query is never replayed: a random blob name is fine (the reader removes it).
    return this.payloads.pack(`status-${randomUUID()}`, toJobView(job, now));
  }
}
