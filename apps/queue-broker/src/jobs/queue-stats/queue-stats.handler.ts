import { Injectable } from '@nestjs/common';
import { Subjects, type EndpointJobsQuery, type EndpointsJobsQuery, type QueueStats } from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import { QueueStatsReader } from './queue-stats.reader.js';

/** `job.qry.queue-stats` for the autoscaler (lowPriority jobs are counted apart: they never trigger a scale-up). */
@Injectable()
export class QueueStatsHandler {
  constructor(private readonly stats: QueueStatsReader) {}

  @QueryHandler(Subjects.job.queueStats)
  handle(ctx: QueryContext<EndpointJobsQuery>): Promise<QueueStats> {
    return this.stats.read(ctx.payload.endpointId, new Date());
  }

  /** Many endpoints' at once, in the order asked (the autoscaler's control loop asks for all of them each tick). */
  @QueryHandler(Subjects.job.queueStatsMany)
  handleMany(ctx: QueryContext<EndpointsJobsQuery>): Promise<QueueStats[]> {
    return this.stats.readMany(ctx.payload.endpointIds, new Date());
  }
}
