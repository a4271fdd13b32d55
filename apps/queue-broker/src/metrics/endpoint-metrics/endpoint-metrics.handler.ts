import { Injectable } from '@nestjs/common';
import { METRICS_WINDOWS, Subjects, type EndpointMetrics, type EndpointMetricsQuery } from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import { MetricsRepository } from '../metrics.repository.js';
import { toEndpointMetrics, windowStart } from './metrics-series.js';

/**
 * `job.qry.metrics` (GET /v2/serverless/{id}/metrics): the window's rollup rows of the step's resolution, one
 * primary-key range of at most 168 rows, never the jobs. The gateway has checked the endpoint is the caller's.
 */
@Injectable()
export class EndpointMetricsHandler {
  constructor(private readonly metrics: MetricsRepository) {}

  @QueryHandler(Subjects.job.metrics)
  async handle(ctx: QueryContext<EndpointMetricsQuery>): Promise<EndpointMetrics> {
    const { endpointId, window } = ctx.payload;
    const now = new Date();
    const rows = await this.metrics.read(
      endpointId,
      METRICS_WINDOWS[window].stepMs / 1000,
      windowStart(window, now),
    );
    return toEndpointMetrics(endpointId, window, rows, now);
  }
}
