import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import {
  CreateNetworkVolumeDto,
  UpdateNetworkVolumeDto,
  type Actor,
  type NetworkVolumeView,
} from '@app/contracts';
import { Auth, CurrentActor, Resource } from '../auth/auth.decorators.js';
import { Operation } from '../openapi/openapi.decorators.js';
import { NetworkVolumesService } from './network-volumes.service.js';

/** `/v1/networkvolumes`: storage in one data center; deleting one that is mounted is refused (400). */
@ApiTags('Network volumes')
@Auth({ key: 'bearer' })
@Resource('volumes')
@Controller('v1/networkvolumes')
export class NetworkVolumesController {
  constructor(private readonly volumes: NetworkVolumesService) {}

  @Post()
  @HttpCode(201)
  @Operation('Create a network volume', { returns: 'NetworkVolumeView' })
  create(@Body() dto: CreateNetworkVolumeDto, @CurrentActor() actor: Actor): Promise<NetworkVolumeView> {
    return this.volumes.create(dto, actor);
  }

  @Get()
  @Operation("List the caller's network volumes", { returns: 'NetworkVolumeView', array: true })
  list(@CurrentActor() actor: Actor): Promise<NetworkVolumeView[]> {
    return this.volumes.list(actor);
  }

  @Get(':networkVolumeId')
  @Operation('Get a network volume', { returns: 'NetworkVolumeView' })
  get(@Param('networkVolumeId') id: string, @CurrentActor() actor: Actor): Promise<NetworkVolumeView> {
    return this.volumes.get(id, actor);
  }

  @Patch(':networkVolumeId')
  @Operation('Rename or grow a network volume', {
    returns: 'NetworkVolumeView',
    errors: { 400: 'size is smaller than the current size: a volume only grows' },
  })
  update(
    @Param('networkVolumeId') id: string,
    @Body() dto: UpdateNetworkVolumeDto,
    @CurrentActor() actor: Actor,
  ): Promise<NetworkVolumeView> {
    return this.volumes.update(id, dto, actor);
  }

  @Delete(':networkVolumeId')
  @HttpCode(204)
  @Operation('Delete a network volume', { errors: { 400: 'a cluster or a pod still mounts the volume' } })
  delete(@Param('networkVolumeId') id: string, @CurrentActor() actor: Actor): Promise<void> {
    return this.volumes.delete(id, actor);
  }
}
