import { Body, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
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
import { abortOnClose } from '../jobs/http-abort.js';
import { jobRoute } from '../jobs/job-routes.setup.js';
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
@Auth({ key: 'raw-or-bearer', endpointParam: 'endpointId', access: 'write', worker: true })
@NoRateLimit()
@Controller('v2')
export class WorkersController {
  constructor(private readonly workers: WorkersService) {}

  @Get(':endpointId/job-take/:workerId')
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
