import { Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCode,
  Subjects,
  type Actor,
  type CreateNetworkVolumeDto,
  type NetworkVolumeView,
  type UpdateNetworkVolumeDto,
} from '@app/contracts';
import { CommandBus, QueryBus } from '@app/messaging';

/** Network volumes, owned by cluster-scheduler: the use cases behind v1, v2 and GraphQL. */
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

  /** Rename, grow, or both (the owner refuses a shrink). */
  update(id: string, dto: UpdateNetworkVolumeDto, actor: Actor): Promise<NetworkVolumeView> {
    return this.commands.execute(Subjects.volume.update, { id, name: dto.name, size: dto.size }, actor);
  }

  list(actor: Actor): Promise<NetworkVolumeView[]> {
    return this.queries.query(Subjects.volume.list, {}, actor);
  }

  get(id: string, actor: Actor): Promise<NetworkVolumeView> {
    return this.queries.query(Subjects.volume.get, { id }, actor);
  }

  /** For a view of what mounts it (a pod, an endpoint): the volume, or null once it is gone. */
  async find(id: string, actor: Actor): Promise<NetworkVolumeView | null> {
    try {
      return await this.get(id, actor);
    } catch (error) {
      if (error instanceof DomainError && error.code === ErrorCode.NotFound) return null;
      throw error;
    }
  }

  async delete(id: string, actor: Actor): Promise<void> {
    await this.commands.execute(Subjects.volume.delete, { id }, actor);
  }
}
