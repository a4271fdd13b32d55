import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { JOB_LIST_MAX_LIMIT, JOB_STATUSES, type Actor, type JobDetail, type JobPage } from '@app/contracts';
import { Auth, CurrentActor, Resource } from '../auth/auth.decorators.js';
import { IntQuery, Operation, TextQuery } from '../openapi/openapi.decorators.js';
import { JobHistoryService } from './job-history.service.js';
import type { JobListParams } from './job-list-query.js';

/**
 * `/v2/serverless/{endpointId}/jobs`: ours, beside RunPod's management API (which lists no requests): an endpoint's
 * jobs and one job whole, for the endpoint's account (read-only keys may read). Under `/v2/serverless/…`, apart
 * from the queue routes `/v2/{endpointId}/…` (a static segment wins over a parameter).
 */
@ApiTags('Serverless endpoints')
@Auth({ key: 'bearer' })
@Resource('endpoints')
@Controller('v2/serverless')
export class JobHistoryController {
  constructor(private readonly history: JobHistoryService) {}

  @Get(':endpointId/jobs')
  @TextQuery('status', 'jobs in these statuses (comma-separated or repeated)', JOB_STATUSES)
  @TextQuery('from', 'jobs created at or after this ISO 8601 time')
  @TextQuery('to', 'jobs created before this ISO 8601 time')
  @TextQuery('cursor', 'the `next` of the page before')
  @IntQuery('limit', { min: 1, max: JOB_LIST_MAX_LIMIT, default: 20 }, 'jobs per page')
  @Operation("An endpoint's jobs, newest first, a page at a time", {
    returns: 'JobPage',
    description:
      'Each job with its timings, the worker (pod id) that ran it, its attempts and retries, and the first 200 ' +
      'characters of its input, output and error with their sizes in bytes. Once its result expired (1 min after a ' +
      '/runsync, 30 min after a /run, or its ttl: /status answers 404 from then) a job stays listed without them ' +
      'for JOB_HISTORY_RETENTION_MS (7 days by default; docs/adr/0042-job-history.md).',
    errors: {
      422:
        'an unknown status, a time that is not ISO 8601, from not before to, a limit outside 1-100 or a cursor ' +
        'not of this list (each named in `errors`)',
    },
  })
  list(
    @Param('endpointId') endpointId: string,
    @Query() query: JobListParams,
    @CurrentActor() actor: Actor,
  ): Promise<JobPage> {
    return this.history.list(endpointId, query, actor);
  }

  @Get(':endpointId/jobs/:jobId')
  @Operation("One job of the endpoint: input, output or error, phases, leases and its worker's log lines", {
    returns: 'JobDetail',
    description:
      'Input, output and error whole while the result is kept, absent after. `phases` in ms (queued, running, ' +
      'total), `leases` one per attempt with its worker and outcome, and `logs` the lines its last worker printed ' +
      'from 5 s before it started to 5 s after it ended (at most 500).',
    errors: { 404: "no job of that id in the endpoint's history" },
  })
  get(
    @Param('endpointId') endpointId: string,
    @Param('jobId') jobId: string,
    @CurrentActor() actor: Actor,
  ): Promise<JobDetail> {
    return this.history.get(endpointId, jobId, actor);
  }
}
