import { Injectable } from '@nestjs/common';
import { Subjects, type ListNetworkVolumesQuery, type NetworkVolumeView } from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import { toNetworkVolumeView } from '../network-volume.mapper.js';
import { NetworkVolumesRepository } from '../network-volumes.repository.js';

@Injectable()
export class ListNetworkVolumesHandler {
  constructor(private readonly repository: NetworkVolumesRepository) {}

  @QueryHandler(Subjects.volume.list)
  async handle(ctx: QueryContext<ListNetworkVolumesQuery>): Promise<NetworkVolumeView[]> {
    return (await this.repository.listByOwner(ctx.actor.userId)).map(toNetworkVolumeView);
  }
}
