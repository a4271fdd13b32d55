import { Body, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
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
import { Auth, CurrentActor } from '../auth/auth.decorators.js';
import { RateLimitPolicy } from '../rate-limit/rate-limit.decorators.js';
import { abortOnClose } from './http-abort.js';
import { JobsService } from './jobs.service.js';
import { jobRoute } from './job-routes.setup.js';
import { intParam } from './wait-param.js';

/**
 * The job operations of a queue-based endpoint (service-interface.md, compatibility.md §1): the key raw or as
 * bearer, every success 200 (the JS SDK treats other 2xx as failures), errors as problem+json.
 */
@Auth({ key: 'raw-or-bearer', endpointParam: 'endpointId' })
@Controller('v2')
export class JobsController {
  constructor(private readonly jobs: JobsService) {}

  @Post(':endpointId/run')
  @HttpCode(200)
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

  @Get(':endpointId/status/:jobId')
  @RateLimitPolicy('queue.status')
  status(
    @Param('endpointId') endpointId: string,
    @Param('jobId') jobId: string,
    @Query('ttl') ttl: unknown,
    @CurrentActor() actor: Actor,
  ): Promise<JobView> {
    return this.jobs.status(endpointId, jobId, intParam('ttl', ttl, JobLimits.ttlMs), actor);
  }

  @Get(':endpointId/status-sync/:jobId')
  @RateLimitPolicy('queue.status')
  statusSync(
    @Param('endpointId') endpointId: string,
    @Param('jobId') jobId: string,
    @Query('wait') wait: unknown,
    @CurrentActor() actor: Actor,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<JobView> {
    const waitMs = intParam('wait', wait, JobLimits.statusSyncWaitMs)!;
    return this.jobs.statusSync(endpointId, jobId, waitMs, actor, abortOnClose(reply));
  }

  @Get(':endpointId/stream/:jobId')
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
  @RateLimitPolicy('queue.purge-queue')
  @RouteConfig(jobRoute({ bodyLimit: 64 * 1024 }))
  purge(@Param('endpointId') endpointId: string, @CurrentActor() actor: Actor): Promise<PurgeResult> {
    return this.jobs.purge(endpointId, actor);
  }

  @Get(':endpointId/health')
  @RateLimitPolicy('queue.status')
  health(@Param('endpointId') endpointId: string, @CurrentActor() actor: Actor): Promise<EndpointHealth> {
    return this.jobs.health(endpointId, actor);
  }
}
