import { Body, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiBody, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import {
  JobLimits,
  type Actor,
  type JobDoneResult,
  type JobStreamResult,
  type StopsResult,
  type TakenJob,
} from '@app/contracts';
import { Auth, CurrentActor } from '../auth/auth.decorators.js';
import { IntQuery, Operation, TextQuery } from '../openapi/openapi.decorators.js';
import { abortOnClose } from '../jobs/http-abort.js';
import { jobRoute } from '../edge/job-routes.setup.js';
import { intParam } from '../jobs/wait-param.js';
import { NoRateLimit } from '../rate-limit/rate-limit.decorators.js';
import { jobIdList } from './worker-body.js';
import { WorkersService } from './workers.service.js';

type Params = Record<string, unknown>;

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value ? value : undefined;
}

/**
 * The worker protocol (compatibility.md §2) under /v2/{endpoint_id}/: keys of scope `worker` (RUNPOD_AI_API_KEY)
 * may use only these routes, only for their endpoint; never rate limited.
 */

/** The body of job-done and job-stream: JSON under any content type the SDKs send. */
const WORKER_JSON_BODY = {
  description:
    'A JSON object, as application/json, text/plain or application/x-www-form-urlencoded (read as JSON either way); no body or null is {}',
  schema: { type: ['object', 'null'] },
  required: false,
};
@ApiTags('Worker protocol')
@Auth({ key: 'raw-or-bearer', endpointParam: 'endpointId', access: 'write', worker: true })
@NoRateLimit()
@Controller('v2')
export class WorkersController {
  constructor(private readonly workers: WorkersService) {}

  @Get(':endpointId/job-take/:workerId')
  @Operation('Take a job (long poll)', {
    returns: 'TakenJob',
    orNoContent: true,
    description:
      'Waits for a queued job and leases it to the worker; 204 when none came within the long poll.',
  })
  @TextQuery('gpu', 'The GPU the worker runs on')
  async take(
    @Param('endpointId') endpointId: string,
    @Param('workerId') workerId: string,
    @Query() query: Params,
    @CurrentActor() actor: Actor,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<TakenJob | undefined> {
    const jobs = await this.workers.take(
      endpointId,
      workerId,
      1,
      text(query.gpu),
      actor,
      abortOnClose(reply),
    );
    if (!jobs.length) void reply.status(204);
    return jobs[0];
  }

  @Get(':endpointId/job-take-batch/:workerId')
  @Operation('Take up to batch_size jobs (long poll)', {
    returns: 'TakenJob',
    array: true,
    orNoContent: true,
    description: 'Like job-take for a worker running several jobs at once; 204 when none came.',
  })
  @TextQuery('gpu', 'The GPU the worker runs on')
  @IntQuery('batch_size', { min: 1, max: JobLimits.maxBatchSize, default: 1 }, 'Most jobs to take')
  async takeBatch(
    @Param('endpointId') endpointId: string,
    @Param('workerId') workerId: string,
    @Query() query: Params,
    @CurrentActor() actor: Actor,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<TakenJob[] | undefined> {
    const batchSize = intParam('batch_size', query.batch_size, {
      min: 1,
      max: JobLimits.maxBatchSize,
      default: 1,
    })!;
    const jobs = await this.workers.take(
      endpointId,
      workerId,
      batchSize,
      text(query.gpu),
      actor,
      abortOnClose(reply),
    );
    if (!jobs.length) {
      void reply.status(204);
      return undefined;
    }
    return jobs;
  }

  @Get(':endpointId/job-stop/:workerId')
  @Operation('Wait for jobs the worker must abandon (long poll)', {
    returns: 'StopsResult',
    description: 'Cancelled or timed-out jobs leased to this worker; it posts no result for them.',
  })
  stops(
    @Param('endpointId') endpointId: string,
    @Param('workerId') workerId: string,
    @CurrentActor() actor: Actor,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<StopsResult> {
    return this.workers.stops(endpointId, workerId, actor, abortOnClose(reply));
  }

  @Post(':endpointId/job-done/:workerId/:jobId')
  @HttpCode(200)
  @Operation("Report a job's result or progress", {
    returns: 'JobDoneResult',
    description:
      '{output} completes the job, {error} fails it, {status: "IN_PROGRESS", output} is a progress update. The ' +
      'body is read as JSON whatever its content type. A late or repeated post is answered 200 and changes nothing.',
    errors: { 400: 'the body is not a JSON object' },
  })
  @ApiBody(WORKER_JSON_BODY)
  @RouteConfig(jobRoute({ bodyLimit: JobLimits.workerBodyBytes }))
  done(
    @Param('endpointId') endpointId: string,
    @Param('workerId') workerId: string,
    @Param('jobId') jobId: string,
    @Body() body: unknown,
    @CurrentActor() actor: Actor,
  ): Promise<JobDoneResult> {
    return this.workers.done(endpointId, workerId, jobId, body, actor);
  }

  @Post(':endpointId/job-stream/:workerId/:jobId')
  @HttpCode(200)
  @Operation('Post a stream chunk of a job', {
    returns: 'JobStreamResult',
    description: '{output: <chunk>}, one call per chunk, in order.',
    errors: { 400: 'the body is not a JSON object' },
  })
  @ApiBody(WORKER_JSON_BODY)
  @RouteConfig(jobRoute({ bodyLimit: JobLimits.workerBodyBytes }))
  stream(
    @Param('endpointId') endpointId: string,
    @Param('workerId') workerId: string,
    @Param('jobId') jobId: string,
    @Body() body: unknown,
    @CurrentActor() actor: Actor,
  ): Promise<JobStreamResult> {
    return this.workers.stream(endpointId, workerId, jobId, body, actor);
  }

  @Get(':endpointId/ping/:workerId')
  @Operation('Worker heartbeat', {
    returns: 'PingResult',
    description: 'A worker whose pings stop is lost: its jobs are queued again.',
  })
  @TextQuery('job_id', 'The jobs in progress on the worker, comma-separated')
  @TextQuery('runpod_version', "The worker SDK's version")
  @TextQuery('status', '`unhealthy`: a start-up check failed and the worker is about to exit')
  @TextQuery('check', 'With status=unhealthy: the check that failed')
  @TextQuery('reason', 'With status=unhealthy: why it failed')
  ping(
    @Param('endpointId') endpointId: string,
    @Param('workerId') workerId: string,
    @Query() query: Params,
    @CurrentActor() actor: Actor,
  ): Promise<{ ok: true }> {
    const reason = [text(query.check), text(query.reason)].filter(Boolean).join(': ');
    return this.workers.ping(
      endpointId,
      workerId,
      {
        jobIds: jobIdList(query.job_id),
        unhealthy: query.status === 'unhealthy',
        ...(reason ? { reason } : {}),
        ...(text(query.runpod_version) ? { version: text(query.runpod_version) } : {}),
      },
      actor,
    );
  }
}
