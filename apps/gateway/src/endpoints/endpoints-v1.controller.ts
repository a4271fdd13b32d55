import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CreateEndpointV1Dto, UpdateEndpointV1Dto, type Actor, type EndpointV1View } from '@app/contracts';
import type { Principal } from '../accounts/accounts.service.js';
import { scopeMayManage } from '../accounts/api-key-scope.js';
import { Auth, actorOf, CurrentActor, CurrentPrincipal, Resource } from '../auth/auth.decorators.js';
import { Operation, TextQuery, SPEND_LIMIT_REFUSAL } from '../openapi/openapi.decorators.js';
import { EndpointsService } from './endpoints.service.js';
import { EndpointsV1Service, type EndpointIncludes } from './endpoints-v1.service.js';

const UPDATE = {
  returns: 'EndpointV1View',
  description: 'Absent fields keep their values; `networkVolumeId: null` removes the volume.',
  errors: {
    402: `raising workersMin: ${SPEND_LIMIT_REFUSAL}`,
    404: 'templateId or networkVolumeId names nothing of yours',
    422: 'a gpuTypeIds entry is neither a GPU pool nor a GPU type, or workersMin exceeds workersMax',
  },
} as const;

/**
 * `/v1/endpoints`: RunPod's REST v1 serverless endpoints, on the same service (and records) as /v2/serverless and
 * GraphQL's `saveEndpoint`. Lists are bare arrays; a create answers 200 (RunPod's v1 does); a read-only key sees
 * `aiKey: null` and masked env values.
 */
@ApiTags('Serverless endpoints')
@Auth({ key: 'bearer' })
@Resource('endpoints')
@Controller('v1/endpoints')
export class EndpointsV1Controller {
  constructor(
    private readonly v1: EndpointsV1Service,
    private readonly endpoints: EndpointsService,
  ) {}

  @Post()
  @HttpCode(200)
  @Operation('Create a serverless endpoint', {
    returns: 'EndpointV1View',
    errors: UPDATE.errors,
  })
  create(@Body() dto: CreateEndpointV1Dto, @CurrentActor() actor: Actor): Promise<EndpointV1View> {
    return this.v1.create(dto, actor);
  }

  @Get()
  @Operation("List the caller's serverless endpoints", { returns: 'EndpointV1View', array: true })
  @TextQuery('includeTemplate', "`true` embeds each endpoint's `template`")
  @TextQuery('includeWorkers', "`true` embeds each endpoint's worker pods as `workers`")
  list(
    @Query('includeTemplate') includeTemplate: string | undefined,
    @Query('includeWorkers') includeWorkers: string | undefined,
    @CurrentPrincipal() principal: Principal,
  ): Promise<EndpointV1View[]> {
    const secrets = scopeMayManage(principal.key.scope);
    return this.v1.list(actorOf(principal), secrets, includes(includeTemplate, includeWorkers));
  }

  @Get(':endpointId')
  @Operation('Get a serverless endpoint', { returns: 'EndpointV1View' })
  @TextQuery('includeTemplate', "`true` embeds the endpoint's `template`")
  @TextQuery('includeWorkers', "`true` embeds the endpoint's worker pods as `workers`")
  get(
    @Param('endpointId') endpointId: string,
    @Query('includeTemplate') includeTemplate: string | undefined,
    @Query('includeWorkers') includeWorkers: string | undefined,
    @CurrentPrincipal() principal: Principal,
  ): Promise<EndpointV1View> {
    const secrets = scopeMayManage(principal.key.scope);
    return this.v1.get(endpointId, actorOf(principal), secrets, includes(includeTemplate, includeWorkers));
  }

  @Patch(':endpointId')
  @HttpCode(200)
  @Operation('Update a serverless endpoint', UPDATE)
  update(
    @Param('endpointId') endpointId: string,
    @Body() dto: UpdateEndpointV1Dto,
    @CurrentActor() actor: Actor,
  ): Promise<EndpointV1View> {
    return this.v1.update(endpointId, dto, actor);
  }

  /** RunPod's second spelling of the update, kept for the clients that post it. */
  @Post(':endpointId/update')
  @HttpCode(200)
  @Operation('Update a serverless endpoint (as PATCH)', UPDATE)
  updateByPost(
    @Param('endpointId') endpointId: string,
    @Body() dto: UpdateEndpointV1Dto,
    @CurrentActor() actor: Actor,
  ): Promise<EndpointV1View> {
    return this.v1.update(endpointId, dto, actor);
  }

  @Delete(':endpointId')
  @HttpCode(204)
  @Operation('Delete a serverless endpoint', {
    errors: { 409: 'workersMin or workersMax is not 0 (set both to 0 first)' },
  })
  delete(@Param('endpointId') endpointId: string, @CurrentActor() actor: Actor): Promise<void> {
    return this.endpoints.delete(endpointId, actor, 'v1');
  }
}

function includes(template: string | undefined, workers: string | undefined): EndpointIncludes {
  return { template: template === 'true', workers: workers === 'true' };
}
