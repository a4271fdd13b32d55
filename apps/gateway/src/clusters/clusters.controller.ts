import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import {
  CreateClusterDto,
  type Actor,
  type ClusterMemberView,
  type ClusterView,
  type PodView,
} from '@app/contracts';
import { Auth, CurrentActor } from '../auth/auth.decorators.js';
import { ClustersService } from './clusters.service.js';

/** `/v2/clusters`: multi-node clusters placed in one data center on a VXLAN overlay. */
@Auth({ key: 'bearer' })
@Controller('v2/clusters')
export class ClustersController {
  constructor(private readonly clusters: ClustersService) {}

  @Post()
  @HttpCode(201)
  create(@Body() dto: CreateClusterDto, @CurrentActor() actor: Actor): Promise<ClusterView> {
    return this.clusters.create(dto, actor);
  }

  @Get()
  list(@CurrentActor() actor: Actor): Promise<ClusterView[]> {
    return this.clusters.list(actor);
  }

  @Get(':id')
  get(@Param('id') id: string, @CurrentActor() actor: Actor): Promise<ClusterView> {
    return this.clusters.get(id, actor);
  }

  @Get(':id/pods')
  pods(@Param('id') id: string, @CurrentActor() actor: Actor): Promise<(PodView | ClusterMemberView)[]> {
    return this.clusters.pods(id, actor);
  }

  @Delete(':id')
  @HttpCode(204)
  delete(@Param('id') id: string, @CurrentActor() actor: Actor): Promise<void> {
    return this.clusters.delete(id, actor);
  }
}
