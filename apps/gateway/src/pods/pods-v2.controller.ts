import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import type { StreamableFile } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import {
  CreatePodV2Dto,
  PodActionV2Dto,
  UpdatePodV2Dto,
  toPodV2View,
  type Actor,
  type PodLogPage,
  type PodV2List,
  type PodV2View,
} from '@app/contracts';
import { Auth, CurrentActor, Resource } from '../auth/auth.decorators.js';
import { SecretsReadable } from '../auth/secrets-readable.decorator.js';
import { sendJsonBody, type JsonBody } from '../edge/json-body.js';
import { LogRequestOf, LogRoute, type LogRequest } from '../logs/log-route.decorator.js';
import { PodLogsService } from '../logs/pod-logs.service.js';
import { Operation, TextQuery, SPEND_LIMIT_REFUSAL } from '../openapi/openapi.decorators.js';
import { fromCreatePodV2, fromUpdatePodV2 } from './pod-v2.view.js';
import { PodsService } from './pods.service.js';

/** `/v2/pods`: RunPod's management API v2, on the same use cases as /v1/pods and GraphQL. */
@ApiTags('Pods')
@Auth({ key: 'bearer' })
@Resource('pods')
@Controller('v2/pods')
export class PodsV2Controller {
  constructor(
    private readonly pods: PodsService,
    private readonly podLogs: PodLogsService,
  ) {}

  @Post()
  @HttpCode(201)
  @Operation('Create a pod', {
    returns: 'PodV2View',
    description:
      'A standalone GPU (`gpu`) or CPU (`cpu`) pod, placed by the scheduler; it starts PROVISIONING.',
    errors: {
      400: 'mounts: both persistent and network, or persistent on a CPU pod',
      404: 'templateId, registry or a network volume names nothing of yours',
      402: SPEND_LIMIT_REFUSAL,
      409: 'no host has the capacity asked for',
    },
  })
  async create(@Body() dto: CreatePodV2Dto, @CurrentActor() actor: Actor): Promise<PodV2View> {
    return toPodV2View(await this.pods.create(fromCreatePodV2(dto), actor));
  }

  @Get()
  @Operation("List the caller's pods", { returns: 'PodV2List', serialized: true })
  @TextQuery('includeClusterPods', '`true` adds cluster member pods (any other value does not)')
  async list(
    @Query('includeClusterPods') includeClusterPods: string | undefined,
    @CurrentActor() actor: Actor,
    @SecretsReadable() secrets: boolean,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<JsonBody<PodV2List>> {
    return sendJsonBody(
      reply,
      await this.pods.listStandaloneV2(includeClusterPods === 'true', actor, secrets),
    );
  }

  /** Env secrets (a generated JUPYTER_PASSWORD, say) in clear for a full key, masked for a read key. */
  @Get(':podId')
  @Operation('Get a pod', { returns: 'PodV2View' })
  async get(
    @Param('podId') podId: string,
    @CurrentActor() actor: Actor,
    @SecretsReadable() secrets: boolean,
  ): Promise<PodV2View> {
    return toPodV2View(await this.pods.get(podId, actor, secrets));
  }

  @Patch(':podId')
  @HttpCode(200)
  @Operation('Update a pod', {
    returns: 'PodV2View',
    description:
      'Absent fields keep their values. A change to the container (image, args, disk, ports, env, registry) ' +
      'restarts a RUNNING pod (as restart: container recreated, container disk wiped) and applies at the next ' +
      'start of a stopped one; name and mounts change without a restart. Mounts follow the interface: only a ' +
      "path changes, at the container's next start. Masked env values (********) sent back keep their value.",
    errors: {
      400: 'network emptied, a mount kind the pod was created without, or another network volume',
      404: 'registry names no credential of yours',
      409: 'a cluster member (its cluster configures it), a terminated pod, or a container change while PROVISIONING or STARTING',
    },
  })
  async update(
    @Param('podId') podId: string,
    @Body() dto: UpdatePodV2Dto,
    @CurrentActor() actor: Actor,
  ): Promise<PodV2View> {
    return toPodV2View(await this.pods.update(podId, fromUpdatePodV2(dto), actor));
  }

  @Delete(':podId')
  @HttpCode(204)
  @Operation('Terminate a pod', {
    errors: { 409: 'the pod is a cluster member (delete its cluster), or already terminated' },
  })
  async terminate(@Param('podId') podId: string, @CurrentActor() actor: Actor): Promise<void> {
    await this.pods.act(podId, 'terminate', actor);
  }

  /** start, stop and restart answer 200 with the pod; terminate 204 with no body (as RunPod's v2). */
  @Post(':podId/action')
  @HttpCode(200)
  @Operation('Start, stop, restart or terminate a pod', {
    returns: 'PodV2View',
    orNoContent: true,
    errors: {
      402: `start or restart of a stopped pod: ${SPEND_LIMIT_REFUSAL}`,
      409: "the action is not among the pod's `actions` (its status, or a member's terminate)",
    },
  })
  async action(
    @Param('podId') podId: string,
    @Body() dto: PodActionV2Dto,
    @CurrentActor() actor: Actor,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<PodV2View | undefined> {
    const pod = await this.pods.act(podId, dto.action, actor);
    if (dto.action !== 'terminate') return toPodV2View(pod);
    void reply.status(204);
    return undefined;
  }

  @Get(':podId/logs')
  @LogRoute("A pod's container logs", {})
  async logs(
    @Param('podId') podId: string,
    @LogRequestOf() request: LogRequest,
    @CurrentActor() actor: Actor,
  ): Promise<PodLogPage | StreamableFile> {
    // 404 or 403 before anything is read.
    return this.podLogs.respond(async () => (await this.pods.get(podId, actor)).id, request);
  }
}
