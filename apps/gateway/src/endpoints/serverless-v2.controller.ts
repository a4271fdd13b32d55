import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Patch,
  Post,
  Query,
  type StreamableFile,
} from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { randomBytes } from 'node:crypto';
import {
  CreateEndpointV2Dto,
  METRICS_WINDOW_NAMES,
  UpdateEndpointV2Dto,
  type Actor,
  type EndpointMetrics,
  type EndpointV2List,
  type EndpointV2View,
  type PodLogPage,
  type WorkerList,
} from '@app/contracts';
import type { Principal } from '../accounts/accounts.service.js';
import { scopeMayManage } from '../accounts/api-key-scope.js';
import { Auth, actorOf, CurrentActor, CurrentPrincipal, Resource } from '../auth/auth.decorators.js';
import { LogRequestOf, LogRoute, type LogRequest } from '../logs/log-route.decorator.js';
import { PodLogsService } from '../logs/pod-logs.service.js';
import { Operation, SPEND_LIMIT_REFUSAL, TextQuery } from '../openapi/openapi.decorators.js';
import { EndpointFromImageService } from './endpoint-from-image.service.js';
import { toEndpointV2View, toSaveCommandV2, toTemplateFromImageV2 } from './endpoint-v2.view.js';
import { EndpointsService } from './endpoints.service.js';
import { metricsWindow } from './metrics-window.js';

/**
 * `/v2/serverless`: RunPod's management API v2 for serverless endpoints, on the same service (and records) as
 * GraphQL's `saveEndpoint`, `deleteEndpoint` and `myself { endpoints }`. A read-only key sees `aiKey: null`.
 */
@ApiTags('Serverless endpoints')
@Auth({ key: 'bearer' })
@Resource('endpoints')
@Controller('v2/serverless')
export class ServerlessV2Controller {
  constructor(
    private readonly endpoints: EndpointsService,
    private readonly fromImage: EndpointFromImageService,
    private readonly logs: PodLogsService,
  ) {}

  @Post()
  @HttpCode(201)
  @Operation('Create a serverless endpoint', {
    returns: 'EndpointV2View',
    description:
      'From a serverless template (`templateId`) or from `image` (with `args`, `disk`, `ports`, `registry`): ' +
      'then a serverless template named `<name>__template__<suffix>` is made for the endpoint (and deleted ' +
      'again if the endpoint is refused).',
    errors: {
      402: `workers.min above 0: ${SPEND_LIMIT_REFUSAL}`,
      404: 'templateId, registry or the network volume names nothing of yours',
      422: 'neither templateId nor image, or both',
    },
  })
  async create(@Body() dto: CreateEndpointV2Dto, @CurrentActor() actor: Actor): Promise<EndpointV2View> {
    // Everything the gateway checks is checked before a template is made for an image.
    const command = toSaveCommandV2(dto, null);
    const template = toTemplateFromImageV2(dto, randomBytes(4).toString('hex'));
    return toEndpointV2View(
      template
        ? await this.fromImage.create(template, command, actor)
        : await this.endpoints.save(command, actor),
    );
  }

  @Get()
  @Operation("List the caller's serverless endpoints", { returns: 'EndpointV2List' })
  async list(@CurrentPrincipal() principal: Principal): Promise<EndpointV2List> {
    const secrets = scopeMayManage(principal.key.scope);
    const endpoints = await this.endpoints.list(actorOf(principal), { secrets });
    return { endpoints: endpoints.map(toEndpointV2View) };
  }

  @Get(':endpointId')
  @Operation('Get a serverless endpoint', { returns: 'EndpointV2View' })
  async get(
    @Param('endpointId') endpointId: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<EndpointV2View> {
    const secrets = scopeMayManage(principal.key.scope);
    return toEndpointV2View(await this.endpoints.get(endpointId, actorOf(principal), { secrets }));
  }

  @Patch(':endpointId')
  @HttpCode(200)
  @Operation('Update a serverless endpoint (absent fields keep their values)', {
    returns: 'EndpointV2View',
    errors: {
      402: `workers.min above 0: ${SPEND_LIMIT_REFUSAL}`,
      404: 'templateId or the network volume names nothing of yours',
    },
  })
  async update(
    @Param('endpointId') endpointId: string,
    @Body() dto: UpdateEndpointV2Dto,
    @CurrentActor() actor: Actor,
  ): Promise<EndpointV2View> {
    return toEndpointV2View(
      await this.endpoints.update(endpointId, (current) => toSaveCommandV2(dto, current), actor),
    );
  }

  @Delete(':endpointId')
  @HttpCode(204)
  @Operation('Delete a serverless endpoint', {
    errors: { 409: 'workers.min or workers.max is not 0 (set both to 0 first)' },
  })
  delete(@Param('endpointId') endpointId: string, @CurrentActor() actor: Actor): Promise<void> {
    return this.endpoints.delete(endpointId, actor, 'v2');
  }

  @Get(':endpointId/workers')
  @Operation("List an endpoint's live workers", { returns: 'WorkerList' })
  workers(@Param('endpointId') endpointId: string, @CurrentActor() actor: Actor): Promise<WorkerList> {
    return this.endpoints.workers(endpointId, actor);
  }

  @Get(':endpointId/metrics')
  @TextQuery(
    'window',
    'the time window (default `1h`): 5m and 1h in steps of a minute, 24h and 7d of an hour',
    [...METRICS_WINDOW_NAMES],
  )
  @Operation(
    "An endpoint's metrics over a window: job counts, latency percentiles, cold starts, queue, workers; " +
      "a load-balancing endpoint's requests",
    {
      returns: 'EndpointMetrics',
      description:
        'Time series with a fixed step, from rollups the queue broker keeps as jobs finish (docs/adr/0022): ' +
        'counters per step, delay/execution/cold-start p50, p90 and p99 (within 19 %: four buckets per doubling), ' +
        'the same for each cold start phase (coldStartPhases: placement, runtimeStart = imagePull + ' +
        'containerStart, workerReady), and the peak queue depth, oldest queued job and workers by status sampled ' +
        'every METRICS_SAMPLE_MS. Load-balancing endpoints: lb, requests per status class (status2xx, ' +
        'status4xx, status5xx, proxyErrors) and their latency (arrival → response end), as the gateways count ' +
        'them and record every LB_METRICS_FLUSH_MS (docs/adr/0026); their workers by status in workers.',
      errors: { 422: 'window is not one of 5m, 1h, 24h, 7d, or is given twice' },
    },
  )
  metrics(
    @Param('endpointId') endpointId: string,
    @Query() query: { window?: unknown },
    @CurrentActor() actor: Actor,
  ): Promise<EndpointMetrics> {
    return this.endpoints.metrics(endpointId, metricsWindow(query), actor);
  }

  @Get(':endpointId/workers/:workerId/logs')
  @LogRoute("A worker's logs (its pod's)", { 404: 'the worker is not a worker of this endpoint' })
  async workerLogs(
    @Param('endpointId') endpointId: string,
    @Param('workerId') workerId: string,
    @LogRequestOf() request: LogRequest,
    @CurrentActor() actor: Actor,
  ): Promise<PodLogPage | StreamableFile> {
    return this.logs.respond(() => this.endpoints.workerPod(endpointId, workerId, actor), request);
  }
}
