import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  DomainError,
  ErrorCode,
  Subjects,
  type GetJobDetailQuery,
  type JobDetailView,
  type JobListView,
  type ListEndpointJobsQuery,
  type Packed,
} from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import { PayloadStore } from '../../payloads/payload-store.js';
import { JobHistoryRepository } from './job-history.repository.js';
import { toJobDetail, toJobList } from './job-history.views.js';

/**
 * GET /v2/serverless/{id}/jobs and /jobs/{jobId}: the endpoint's job history (the gateway checked the endpoint is
 * the caller's). Payloads are read only here, for the caller, and never logged.
 */
@Injectable()
export class JobHistoryHandler {
  constructor(
    private readonly history: JobHistoryRepository,
    private readonly payloads: PayloadStore,
  ) {}

  @QueryHandler(Subjects.job.list)
  async list(ctx: QueryContext<ListEndpointJobsQuery>): Promise<JobListView> {
    const now = new Date();
    return toJobList(await this.history.list(ctx.payload, now), ctx.payload.limit, now);
  }

  @QueryHandler(Subjects.job.detail)
  async detail(ctx: QueryContext<GetJobDetailQuery>): Promise<Packed<JobDetailView>> {
    const { endpointId, jobId } = ctx.payload;
    const now = new Date();
    const row = await this.history.detail(endpointId, jobId, now);
    if (!row) {
      throw new DomainError(
        ErrorCode.NotFound,
        `job ${jobId} of endpoint ${endpointId} is not known (or no longer kept)`,
      );
    }
    // A whole input or output can exceed a NATS message: packed as GET /status packs (the reader removes the blob).
    return this.payloads.pack(`job-detail-${randomUUID()}`, toJobDetail(row, now));
  }
}
