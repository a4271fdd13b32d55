import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import {
  CreateClusterDto,
  type Actor,
  type ClusterMemberView,
  type ClusterView,
  type PodView,
} from '@app/contracts';
import { Auth, CurrentActor } from '../auth/auth.decorators.js';
import { Operation, SPEND_LIMIT_REFUSAL } from '../openapi/openapi.decorators.js';
import { ClustersService } from './clusters.service.js';

/** `/v2/clusters`: multi-node clusters placed in one data center on a VXLAN overlay. */
@ApiTags('Clusters')
@Auth({ key: 'bearer' })
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
  @Operation("List the caller's clusters", { returns: 'ClusterView', array: true })
  list(@CurrentActor() actor: Actor): Promise<ClusterView[]> {
    return this.clusters.list(actor);
  }

  @Get(':id')
  @Operation('Get a cluster', { returns: 'ClusterView' })
  get(@Param('id') id: string, @CurrentActor() actor: Actor): Promise<ClusterView> {
    return this.clusters.get(id, actor);
  }

  @Get(':id/pods')
  @Operation("List a cluster's member pods", {
    returns: 'ClusterPod',
    array: true,
    description: 'Rank, role, overlay address and peer environment of each member.',
  })
  pods(@Param('id') id: string, @CurrentActor() actor: Actor): Promise<(PodView | ClusterMemberView)[]> {
    return this.clusters.pods(id, actor);
  }

  @Delete(':id')
  @HttpCode(204)
  @Operation('Delete a cluster (its VXLAN id and CIDR are freed, its pods terminate)')
  delete(@Param('id') id: string, @CurrentActor() actor: Actor): Promise<void> {
    return this.clusters.delete(id, actor);
  }
}
