import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { DeletedClusterEntity } from './deleted-cluster.entity.js';

/** The clusters pod-lifecycle knows to be deleted (deleted-cluster.entity.ts says why it keeps them). */
@Injectable()
export class DeletedClustersRepository {
  async record(clusterId: string, deletedAt: Date, manager: EntityManager): Promise<void> {
    await manager
      .createQueryBuilder()
      .insert()
      .into(DeletedClusterEntity)
      .values({ clusterId, deletedAt })
      .orIgnore()
      .execute();
  }

  async isDeleted(clusterId: string, manager: EntityManager): Promise<boolean> {
    return (await manager.countBy(DeletedClusterEntity, { clusterId })) > 0;
  }
}
