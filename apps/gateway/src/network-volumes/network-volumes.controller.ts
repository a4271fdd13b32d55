import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { CreateNetworkVolumeDto, type Actor, type NetworkVolumeView } from '@app/contracts';
import { Auth, CurrentActor } from '../auth/auth.decorators.js';
import { NetworkVolumesService } from './network-volumes.service.js';

/** `/v1/networkvolumes`: storage in one data center; deleting one that is mounted is refused (400). */
@Auth({ key: 'bearer' })
@Controller('v1/networkvolumes')
export class NetworkVolumesController {
  constructor(private readonly volumes: NetworkVolumesService) {}

  @Post()
  @HttpCode(201)
  create(@Body() dto: CreateNetworkVolumeDto, @CurrentActor() actor: Actor): Promise<NetworkVolumeView> {
    return this.volumes.create(dto, actor);
  }

  @Get()
  list(@CurrentActor() actor: Actor): Promise<NetworkVolumeView[]> {
    return this.volumes.list(actor);
  }

  @Get(':networkVolumeId')
  get(@Param('networkVolumeId') id: string, @CurrentActor() actor: Actor): Promise<NetworkVolumeView> {
    return this.volumes.get(id, actor);
  }

  @Delete(':networkVolumeId')
  @HttpCode(204)
  delete(@Param('networkVolumeId') id: string, @CurrentActor() actor: Actor): Promise<void> {
    return this.volumes.delete(id, actor);
  }
}
