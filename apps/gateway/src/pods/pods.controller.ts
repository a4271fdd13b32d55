import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { CreatePodDto, type Actor, type PodView } from '@app/contracts';
import { Auth, CurrentActor } from '../auth/auth.decorators.js';
import { PodsService } from './pods.service.js';

/** `/v1/pods`: RunPod's pod routes. Actions answer 200 with the pod (the Go CLI parses the body as a pod). */
@Auth({ key: 'bearer' })
@Controller('v1/pods')
export class PodsController {
  constructor(private readonly pods: PodsService) {}

  @Post()
  @HttpCode(201)
  create(@Body() dto: CreatePodDto, @CurrentActor() actor: Actor): Promise<PodView> {
    return this.pods.create(dto, actor);
  }

  /** The caller's pods; `?includeTerminated=true` adds terminated ones. */
  @Get()
  list(
    @Query('includeTerminated') includeTerminated: string | undefined,
    @CurrentActor() actor: Actor,
  ): Promise<PodView[]> {
    return this.pods.list(includeTerminated === 'true', actor);
  }

  @Get(':podId')
  get(@Param('podId') podId: string, @CurrentActor() actor: Actor): Promise<PodView> {
    return this.pods.get(podId, actor);
  }

  @Post(':podId/start')
  @HttpCode(200)
  start(@Param('podId') podId: string, @CurrentActor() actor: Actor): Promise<PodView> {
    return this.pods.start(podId, actor);
  }

  @Post(':podId/stop')
  @HttpCode(200)
  stop(@Param('podId') podId: string, @CurrentActor() actor: Actor): Promise<PodView> {
    return this.pods.stop(podId, actor);
  }

  @Post(':podId/reset')
  @HttpCode(200)
  reset(@Param('podId') podId: string, @CurrentActor() actor: Actor): Promise<PodView> {
    return this.pods.reset(podId, actor);
  }

  @Delete(':podId')
  @HttpCode(204)
  terminate(@Param('podId') podId: string, @CurrentActor() actor: Actor): Promise<void> {
    return this.pods.terminate(podId, actor);
  }
}
