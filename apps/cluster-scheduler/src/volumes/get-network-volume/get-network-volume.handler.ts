import { Injectable } from '@nestjs/common';
import { Subjects, type GetNetworkVolumeQuery, type NetworkVolumeView } from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import { ownedNetworkVolume } from '../network-volume.access.js';
import { toNetworkVolumeView } from '../network-volume.mapper.js';
import { NetworkVolumesRepository } from '../network-volumes.repository.js';

@Injectable()
export class GetNetworkVolumeHandler {
  constructor(private readonly repository: NetworkVolumesRepository) {}

  @QueryHandler(Subjects.volume.get)
  async handle(ctx: QueryContext<GetNetworkVolumeQuery>): Promise<NetworkVolumeView> {
    const { id } = ctx.payload;
    return toNetworkVolumeView(ownedNetworkVolume(await this.repository.findById(id), id, ctx.actor));
  }
}
