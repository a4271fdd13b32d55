import { Injectable } from '@nestjs/common';
import { Subjects, type EndpointMetrics, type EndpointMetricsQuery } from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import { toEndpointMetrics } from './metrics-series.js';
import { RollupCache } from './rollup-cache.js';

/**
 * `job.qry.metrics` (GET /v2/serverless/{id}/metrics): the window's rollup rows of the step's resolution, one
 * primary-key range of at most 168 rows, never the jobs, of which only those changed since this replica's last read
 * of them come from Postgres (rollup-cache.ts). The gateway has checked the endpoint is the caller's.
 */
@Injectable()
export class EndpointMetricsHandler {
  constructor(private readonly rollups: RollupCache) {}

  @QueryHandler(Subjects.job.metrics)
  async handle(ctx: QueryContext<EndpointMetricsQuery>): Promise<EndpointMetrics> {
    const { endpointId, window } = ctx.payload;
    const now = new Date();
    const rows = await this.rollups.window(endpointId, window, now);
    return toEndpointMetrics(endpointId, window, rows, now);
  }
}
