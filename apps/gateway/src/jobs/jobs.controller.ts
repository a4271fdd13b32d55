import { Body, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import {
  JobLimits,
  RunJobDto,
  type Actor,
  type EndpointHealth,
  type JobAccepted,
  type JobView,
  type PurgeResult,
  type StreamRead,
} from '@app/contracts';
import { Auth, CurrentActor, type AuthRule } from '../auth/auth.decorators.js';
import { IntQuery, Operation } from '../openapi/openapi.decorators.js';
import { RateLimitPolicy } from '../rate-limit/rate-limit.decorators.js';
import { abortOnClose } from './http-abort.js';
import { JobsService } from './jobs.service.js';
import { jobRoute } from '../edge/job-routes.setup.js';
import { intParam } from './wait-param.js';

/** The key rule of the queue routes: the key raw or as bearer, keys of scope `endpoints` for their own endpoints. */
export const QUEUE_AUTH_RULE: AuthRule = {
  key: 'raw-or-bearer',
  endpointParam: 'endpointId',
  resource: 'requests',
};
export const QUEUE_JOBS_TAG = 'Queue jobs';

/**
 * The job operations of a queue-based endpoint (service-interface.md, compatibility.md §1): the key raw or as
 * bearer, every success 200 (the JS SDK treats other 2xx as failures), errors as problem+json. GET /status and
 * /status-sync are registered on Fastify itself, under the same rule and with the same checks
 * (job-read-routes.setup.ts).
 */
@ApiTags(QUEUE_JOBS_TAG)
@Auth(QUEUE_AUTH_RULE)
@Controller('v2')
export class JobsController {
  constructor(private readonly jobs: JobsService) {}

  @Post(':endpointId/run')
  @HttpCode(200)
  @Operation('Submit a job (asynchronous)', {
    returns: 'JobAccepted',
    description: 'Answers at once with the job id and IN_QUEUE; a 200 means the job is committed.',
    errors: { 400: 'a load-balancing (LB) endpoint: the job routes serve queue-based endpoints only' },
  })
  @RateLimitPolicy('queue.run')
  @RouteConfig(jobRoute({ bodyLimit: JobLimits.runBodyBytes }))
  run(
    @Param('endpointId') endpointId: string,
    @Body() dto: RunJobDto,
    @CurrentActor() actor: Actor,
  ): Promise<JobAccepted> {
    return this.jobs.run(endpointId, dto, actor);
  }

  @Post(':endpointId/runsync')
  @HttpCode(200)
  @Operation('Submit a job and wait for its result', {
    returns: 'JobView',
    description:
      'The finished job (status, output, delayTime, executionTime), or {id, status} when `wait` ran out first; ' +
      'then GET /status-sync resumes the wait.',
    errors: { 400: 'a load-balancing (LB) endpoint: the job routes serve queue-based endpoints only' },
  })
  @IntQuery('wait', JobLimits.runsyncWaitMs, 'How long to wait for the result, in milliseconds')
  @RateLimitPolicy('queue.runsync')
  @RouteConfig(jobRoute({ bodyLimit: JobLimits.runsyncBodyBytes }))
  runSync(
    @Param('endpointId') endpointId: string,
    @Query('wait') wait: unknown,
    @Body() dto: RunJobDto,
    @CurrentActor() actor: Actor,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<JobView> {
    const waitMs = intParam('wait', wait, JobLimits.runsyncWaitMs)!;
    return this.jobs.runSync(endpointId, dto, waitMs, actor, abortOnClose(reply));
  }

  @Get(':endpointId/stream/:jobId')
  @Operation("Read a job's new stream chunks", {
    returns: 'StreamRead',
    description:
      'The chunks not returned before, in order (each chunk once); an empty `stream` with a terminal status ' +
      'means the stream is over.',
  })
  @RateLimitPolicy('queue.stream')
  stream(
    @Param('endpointId') endpointId: string,
    @Param('jobId') jobId: string,
    @CurrentActor() actor: Actor,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<StreamRead> {
    return this.jobs.stream(endpointId, jobId, actor, abortOnClose(reply));
  }

  @Post(':endpointId/cancel/:jobId')
  @HttpCode(200)
  @Operation('Cancel a job', {
    returns: 'JobAccepted',
    description:
      'A queued job is removed before it starts; a running one is stopped (its worker gets job-stop).',
    errors: { 409: 'the job has already finished' },
  })
  @RateLimitPolicy('queue.cancel')
  @RouteConfig(jobRoute({ bodyLimit: 64 * 1024 }))
  cancel(
    @Param('endpointId') endpointId: string,
    @Param('jobId') jobId: string,
    @CurrentActor() actor: Actor,
  ): Promise<JobAccepted> {
    return this.jobs.cancel(endpointId, jobId, actor);
  }

  @Post(':endpointId/retry/:jobId')
  @HttpCode(200)
  @Operation('Retry a failed or timed-out job', {
    returns: 'JobAccepted',
    description: 'Same job id, the original input, previous output removed; back to IN_QUEUE.',
    errors: { 409: 'the job is not FAILED or TIMED_OUT (the detail names its status)' },
  })
  @RateLimitPolicy('queue.cancel')
  @RouteConfig(jobRoute({ bodyLimit: 64 * 1024 }))
  retry(
    @Param('endpointId') endpointId: string,
    @Param('jobId') jobId: string,
    @CurrentActor() actor: Actor,
  ): Promise<JobAccepted> {
    return this.jobs.retry(endpointId, jobId, actor);
  }

  @Post(':endpointId/purge-queue')
  @HttpCode(200)
  @Operation('Purge the queue', {
    returns: 'PurgeResult',
    description: 'Removes the jobs waiting in the queue; jobs in progress go on.',
  })
  @RateLimitPolicy('queue.purge-queue')
  @RouteConfig(jobRoute({ bodyLimit: 64 * 1024 }))
  purge(@Param('endpointId') endpointId: string, @CurrentActor() actor: Actor): Promise<PurgeResult> {
    return this.jobs.purge(endpointId, actor);
  }

  @Get(':endpointId/health')
  @Operation("Get an endpoint's job and worker counts", { returns: 'EndpointHealth' })
  @RateLimitPolicy('queue.status')
  health(@Param('endpointId') endpointId: string, @CurrentActor() actor: Actor): Promise<EndpointHealth> {
    return this.jobs.health(endpointId, actor);
  }
}
