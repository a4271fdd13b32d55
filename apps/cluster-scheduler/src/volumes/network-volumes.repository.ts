import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { NetworkVolumeEntity } from './network-volume.entity.js';

@Injectable()
export class NetworkVolumesRepository {
  constructor(private readonly dataSource: DataSource) {}

  findById(
    id: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<NetworkVolumeEntity | null> {
    return manager.findOneBy(NetworkVolumeEntity, { id });
  }

  /** Reads the volume and locks its row for a change (or its deletion). */
  lockById(id: string, manager: EntityManager): Promise<NetworkVolumeEntity | null> {
    return manager.findOne(NetworkVolumeEntity, { where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  /**
   * Reads the volume and keeps it from being deleted or changed until the transaction ends (FOR SHARE): taken by
   * whatever mounts it, so a delete running in another lane either sees the mount or is seen as done first. Without
   * it both could commit (the delete counted no mount, the mount read the volume before it went), and a rebuild,
   * which applies them one by one, would refuse the mount.
   */
  shareById(id: string, manager: EntityManager): Promise<NetworkVolumeEntity | null> {
    return manager.findOne(NetworkVolumeEntity, { where: { id }, lock: { mode: 'pessimistic_read' } });
  }

  listByOwner(ownerId: string): Promise<NetworkVolumeEntity[]> {
    return this.dataSource.manager.find(NetworkVolumeEntity, {
      where: { ownerId },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
  }

  insert(entity: NetworkVolumeEntity, manager: EntityManager): Promise<unknown> {
    return manager.insert(NetworkVolumeEntity, entity);
  }

  update(entity: NetworkVolumeEntity, manager: EntityManager): Promise<unknown> {
    return manager.update(
      NetworkVolumeEntity,
      { id: entity.id },
      { name: entity.name, sizeGb: entity.sizeGb },
    );
  }

  delete(id: string, manager: EntityManager): Promise<unknown> {
    return manager.delete(NetworkVolumeEntity, { id });
  }
}
