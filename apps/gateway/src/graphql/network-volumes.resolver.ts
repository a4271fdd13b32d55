import { Args, Mutation, ResolveField, Resolver } from '@nestjs/graphql';
import type { Actor, NetworkVolumeView } from '@app/contracts';
import { Auth, CurrentActor, Resource } from '../auth/auth.decorators.js';
import { NetworkVolumesService } from '../network-volumes/network-volumes.service.js';
import { CreateNetworkVolumeInput, DeleteNetworkVolumeInput } from './inputs/network-volume.input.js';
import { MyselfModel } from './models/myself.model.js';
import { NetworkVolumeModel } from './models/network-volume.model.js';

const toModel = (view: NetworkVolumeView): NetworkVolumeModel => ({
  id: view.id,
  name: view.name,
  size: view.size,
  dataCenterId: view.dataCenterId,
});

/**
 * Provisioners' network volume documents: `createNetworkVolume`, `deleteNetworkVolume(input: {id})` and
 * `myself { networkVolumes { ... } }`, on the service behind `/v1/networkvolumes` and `/v2/network-volumes`.
 */
@Auth({ key: 'query-or-bearer' })
@Resource('volumes')
@Resolver(() => MyselfModel)
export class NetworkVolumesResolver {
  constructor(private readonly volumes: NetworkVolumesService) {}

  @ResolveField('networkVolumes', () => [NetworkVolumeModel])
  async networkVolumes(@CurrentActor('volumes') actor: Actor): Promise<NetworkVolumeModel[]> {
    return (await this.volumes.list(actor)).map(toModel);
  }

  @Mutation(() => NetworkVolumeModel, { description: 'Creates a network volume in a data center' })
  async createNetworkVolume(
    @Args('input') input: CreateNetworkVolumeInput,
    @CurrentActor() actor: Actor,
  ): Promise<NetworkVolumeModel> {
    return toModel(await this.volumes.create(input, actor));
  }

  @Mutation(() => Boolean, {
    nullable: true,
    description: 'Deletes a network volume nothing mounts; answers null',
  })
  async deleteNetworkVolume(
    @Args('input') input: DeleteNetworkVolumeInput,
    @CurrentActor() actor: Actor,
  ): Promise<null> {
    await this.volumes.delete(input.id, actor);
    return null;
  }
}
