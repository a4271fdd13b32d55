import { Injectable } from '@nestjs/common';
import { Subjects, type Actor, type CreateNetworkVolumeDto, type NetworkVolumeView } from '@app/contracts';
import { CommandBus, QueryBus } from '@app/messaging';

/** Network volumes, owned by cluster-scheduler. */
@Injectable()
export class NetworkVolumesService {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  create(dto: CreateNetworkVolumeDto, actor: Actor): Promise<NetworkVolumeView> {
    return this.commands.execute(
      Subjects.volume.create,
      { name: dto.name, size: dto.size, dataCenterId: dto.dataCenterId },
      actor,
    );
  }

  list(actor: Actor): Promise<NetworkVolumeView[]> {
    return this.queries.query(Subjects.volume.list, {}, actor);
  }

  get(id: string, actor: Actor): Promise<NetworkVolumeView> {
    return this.queries.query(Subjects.volume.get, { id }, actor);
  }

  async delete(id: string, actor: Actor): Promise<void> {
    await this.commands.execute(Subjects.volume.delete, { id }, actor);
  }
}
