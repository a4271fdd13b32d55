import { Injectable } from '@nestjs/common';
import { Subjects, type EndpointHealth, type EndpointJobsQuery } from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import { QueueStatsReader } from '../queue-stats/queue-stats.reader.js';

/** GET /health: queued and running jobs now; completed, failed, retried over HEALTH_WINDOW_MS; workers by state. */
@Injectable()
export class EndpointHealthHandler {
  constructor(private readonly stats: QueueStatsReader) {}

  @QueryHandler(Subjects.job.health)
  async handle(ctx: QueryContext<EndpointJobsQuery>): Promise<EndpointHealth> {
    const s = await this.stats.read(ctx.payload.endpointId, new Date());
    return {
      jobs: {
        completed: s.completed,
        failed: s.failed,
        inProgress: s.inProgress,
        inQueue: s.inQueue,
        retried: s.retried,
      },
      workers: s.workers,
    };
  }
}
