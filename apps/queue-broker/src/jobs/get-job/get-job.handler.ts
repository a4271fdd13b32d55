import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Subjects, type GetJobQuery, type JobRead, type Packed } from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import { PayloadStore } from '../../payloads/payload-store.js';
import { toJobView, visibleJob } from '../job.rules.js';
import { JobsRepository } from '../jobs.repository.js';

/** GET /status: the view and until when the job is visible (the edge keeps finished views until then). */
@Injectable()
export class GetJobHandler {
  constructor(
    private readonly jobs: JobsRepository,
    private readonly payloads: PayloadStore,
  ) {}

  @QueryHandler(Subjects.job.get)
  async handle(ctx: QueryContext<GetJobQuery>): Promise<Packed<JobRead>> {
    const { endpointId, jobId } = ctx.payload;
    const now = new Date();
    const job = visibleJob(await this.jobs.findById(jobId), endpointId, jobId, now);
    const read: JobRead = { view: toJobView(job, now), expiresAt: job.expiresAt.toISOString() };
    // A query is never replayed: a random blob name is fine (the reader removes it).
    return this.payloads.pack(`status-${randomUUID()}`, read);
  }
}
