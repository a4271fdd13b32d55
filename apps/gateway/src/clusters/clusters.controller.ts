import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import {
  CreateClusterDto,
  UpdateClusterDto,
  type Actor,
  type ClusterList,
  type ClusterView,
  type PodV2List,
} from '@app/contracts';
import { Auth, CurrentActor, Resource } from '../auth/auth.decorators.js';
import { SecretsReadable } from '../auth/secrets-readable.decorator.js';
import { Operation, SPEND_LIMIT_REFUSAL } from '../openapi/openapi.decorators.js';
import { ClustersService } from './clusters.service.js';

/** `/v2/clusters`: multi-node clusters placed in one data center on a VXLAN overlay. */
@ApiTags('Clusters')
@Auth({ key: 'bearer' })
@Resource('clusters')
@Controller('v2/clusters')
export class ClustersController {
  constructor(private readonly clusters: ClustersService) {}

  @Post()
  @HttpCode(201)
  @Operation('Create a cluster', {
    returns: 'ClusterView',
    description:
      'podCount identical pods placed in one data center (the first of dataCenterIds with capacity, else any) on a ' +
      'private VXLAN overlay.',
    errors: {
      400: "the request conflicts with its rules (both persistent and network mounts, gpuCountPerPod above the GPU type's maxCount, an unknown GPU type or network volume, ...)",
      402: SPEND_LIMIT_REFUSAL,
      409: 'no data center has the capacity asked for (the detail names what was missing)',
    },
  })
  create(@Body() dto: CreateClusterDto, @CurrentActor() actor: Actor): Promise<ClusterView> {
    return this.clusters.create(dto, actor);
  }

  @Get()
  @Operation("List the caller's clusters", { returns: 'ClusterList' })
  async list(@CurrentActor() actor: Actor): Promise<ClusterList> {
    return { clusters: await this.clusters.list(actor) };
  }

  @Get(':id')
  @Operation('Get a cluster', { returns: 'ClusterView' })
  get(@Param('id') id: string, @CurrentActor() actor: Actor): Promise<ClusterView> {
    return this.clusters.get(id, actor);
  }

  @Patch(':id')
  @HttpCode(200)
  @Operation('Rename a cluster', {
    returns: 'ClusterView',
    description:
      'Only the name changes: compute shape (podCount included), type and container configuration are fixed at ' +
      'creation, and each of those fields is refused by name.',
  })
  rename(
    @Param('id') id: string,
    @Body() dto: UpdateClusterDto,
    @CurrentActor() actor: Actor,
  ): Promise<ClusterView> {
    return this.clusters.rename(id, dto, actor);
  }

  @Get(':id/pods')
  @Operation("List a cluster's member pods", {
    returns: 'PodV2List',
    description:
      'Each member as a v2 pod (`cluster` gives its rank, role and overlay address), in rank order; env secrets ' +
      'in clear for a full key, masked for a read key.',
  })
  pods(
    @Param('id') id: string,
    @CurrentActor() actor: Actor,
    @SecretsReadable() secrets: boolean,
  ): Promise<PodV2List> {
    return this.clusters.pods(id, actor, secrets);
  }

  @Delete(':id')
  @HttpCode(204)
  @Operation('Delete a cluster (its VXLAN id and CIDR are freed, its pods terminate)')
  delete(@Param('id') id: string, @CurrentActor() actor: Actor): Promise<void> {
    return this.clusters.delete(id, actor);
  }
}
