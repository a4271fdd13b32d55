import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CreatePodDto, UpdatePodDto, type Actor, type PodDetailsView, type PodView } from '@app/contracts';
import { Auth, CurrentActor, Resource } from '../auth/auth.decorators.js';
import { SecretsReadable } from '../auth/secrets-readable.decorator.js';
import { Operation, TextQuery, SPEND_LIMIT_REFUSAL } from '../openapi/openapi.decorators.js';
import { PodsService } from './pods.service.js';

const UPDATE = {
  returns: 'PodView',
  description:
    'Absent fields keep their values. A change to the container (imageName, dockerArgs, env, ports, ' +
    'containerDiskInGb, containerRegistryAuthId) restarts a RUNNING pod (as reset) and applies at the next start ' +
    'of a stopped one; name and volumeMountPath change without a restart (the path applies at the next start). ' +
    'Masked env values (********) sent back keep the value they stand for.',
  errors: {
    404: 'containerRegistryAuthId names no credential of yours',
    409: 'a cluster member (its cluster configures it), a terminated pod, or a container change while PROVISIONING or STARTING',
  },
} as const;

/** `/v1/pods`: RunPod's pod routes. Actions answer 200 with the pod (the Go CLI parses the body as a pod). */
@ApiTags('Pods')
@Auth({ key: 'bearer' })
@Resource('pods')
@Controller('v1/pods')
export class PodsController {
  constructor(private readonly pods: PodsService) {}

  @Post()
  @HttpCode(201)
  @Operation('Create a pod', {
    returns: 'PodView',
    description: 'A standalone GPU or CPU pod, placed by the scheduler; it starts PROVISIONING.',
    errors: {
      404: 'templateId, networkVolumeId or containerRegistryAuthId names nothing of yours',
      402: SPEND_LIMIT_REFUSAL,
      409: 'no host has the capacity asked for',
    },
  })
  create(@Body() dto: CreatePodDto, @CurrentActor() actor: Actor): Promise<PodView> {
    return this.pods.create(dto, actor);
  }

  /** The caller's pods; `?includeTerminated=true` adds terminated ones. Env secrets in clear for a full key. */
  @Get()
  @Operation("List the caller's pods", { returns: 'PodView', array: true })
  @TextQuery('includeTerminated', '`true` adds terminated pods (any other value does not)')
  list(
    @Query('includeTerminated') includeTerminated: string | undefined,
    @CurrentActor() actor: Actor,
    @SecretsReadable() secrets: boolean,
  ): Promise<PodView[]> {
    return this.pods.list(includeTerminated === 'true', actor, secrets);
  }

  @Get(':podId')
  @Operation('Get a pod', { returns: 'PodDetailsView' })
  @TextQuery('includeMachine', '`true` adds what the catalog says of the host to `machine`')
  @TextQuery('includeNetworkVolume', '`true` adds `networkVolume` (null when the pod mounts none)')
  get(
    @Param('podId') podId: string,
    @Query('includeMachine') includeMachine: string | undefined,
    @Query('includeNetworkVolume') includeNetworkVolume: string | undefined,
    @CurrentActor() actor: Actor,
    @SecretsReadable() secrets: boolean,
  ): Promise<PodDetailsView> {
    const include = { machine: includeMachine === 'true', networkVolume: includeNetworkVolume === 'true' };
    return this.pods.details(podId, include, actor, secrets);
  }

  @Patch(':podId')
  @HttpCode(200)
  @Operation('Edit a pod', UPDATE)
  update(
    @Param('podId') podId: string,
    @Body() dto: UpdatePodDto,
    @CurrentActor() actor: Actor,
  ): Promise<PodView> {
    return this.pods.update(podId, dto, actor);
  }

  /** RunPod's second spelling of the edit, kept for the clients that post it. */
  @Post(':podId/update')
  @HttpCode(200)
  @Operation('Edit a pod (as PATCH)', UPDATE)
  updateByPost(
    @Param('podId') podId: string,
    @Body() dto: UpdatePodDto,
    @CurrentActor() actor: Actor,
  ): Promise<PodView> {
    return this.pods.update(podId, dto, actor);
  }

  @Post(':podId/start')
  @HttpCode(200)
  @Operation('Start or resume a pod', {
    returns: 'PodView',
    errors: {
      402: SPEND_LIMIT_REFUSAL,
      409: "the pod's status does not allow start, or its host no longer has its GPUs",
    },
  })
  start(@Param('podId') podId: string, @CurrentActor() actor: Actor): Promise<PodView> {
    return this.pods.start(podId, actor);
  }

  @Post(':podId/stop')
  @HttpCode(200)
  @Operation('Stop a pod (GPUs released, disk kept)', {
    returns: 'PodView',
    errors: { 409: "the pod's status does not allow stop" },
  })
  stop(@Param('podId') podId: string, @CurrentActor() actor: Actor): Promise<PodView> {
    return this.pods.stop(podId, actor);
  }

  @Post(':podId/reset')
  @HttpCode(200)
  @Operation('Reset a pod (container recreated, container disk wiped)', {
    returns: 'PodView',
    errors: { 409: "the pod's status does not allow reset" },
  })
  reset(@Param('podId') podId: string, @CurrentActor() actor: Actor): Promise<PodView> {
    return this.pods.reset(podId, actor);
  }

  /** RunPod's v1 has both names; here both are the reset (v2's `restart` action is too). */
  @Post(':podId/restart')
  @HttpCode(200)
  @Operation('Restart a pod (as reset: container recreated, container disk wiped)', {
    returns: 'PodView',
    errors: { 409: "the pod's status does not allow reset" },
  })
  restart(@Param('podId') podId: string, @CurrentActor() actor: Actor): Promise<PodView> {
    return this.pods.reset(podId, actor);
  }

  @Delete(':podId')
  @HttpCode(204)
  @Operation('Terminate a pod (GPUs freed)', {
    errors: { 409: 'a cluster member (delete its cluster instead)' },
  })
  terminate(@Param('podId') podId: string, @CurrentActor() actor: Actor): Promise<void> {
    return this.pods.terminate(podId, actor);
  }
}
